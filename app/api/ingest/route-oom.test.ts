import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { minimal, ndjson } from "@/test/events";
import { auth, events, ingestRouteHarness, MiB } from "./route-harness";

// An ingest thread that passes its heap limit: the body it held is answered 503 with Retry-After and stored nowhere
// (its sender keeps it and sends it again), the thread is restarted with a log line and a /metrics count, and the next
// body is stored by the new thread. A tiny limit forces it.
const { file, storedIds, post } = ingestRouteHarness();

/** kv.stored events of 60 hashes each, as many as fit in 8 MiB: parsed, far more than a 24 MB heap holds. */
function heavyBody(prefix: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; i < 10_000; i++) {
    const line = JSON.stringify(
      minimal["kv.stored"]({
        id: `${prefix}-${i}`,
        block_hashes: Array.from({ length: 60 }, (_, j) => String(1e9 + i * 100 + j)),
      }),
    );
    if (size + line.length + 1 > 8 * MiB - 1024) break;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

describe("POST /api/ingest when the ingest thread runs out of memory", () => {
  let close: () => Promise<void>;

  beforeAll(async () => {
    // Migrated before the pool's thread opens it, as the server does (else both connections run the migrations).
    const { serverEngine } = await import("@/server/runtime");
    serverEngine().db!;
    vi.resetModules();
    const { IngestPool } = await import("@/server/ingest/worker-pool");
    const pool = new IngestPool(file(), 1, { maxOldGenerationSizeMb: 24 });
    pool.install();
    close = () => pool.close();
  });

  afterAll(async () => {
    await close?.();
  });

  it("answers 503 with Retry-After, stores nothing of it, restarts the thread and stores the next body", async () => {
    const { metrics } = await import("@/server/observability/metrics");
    const restarts = async () =>
      (await metrics().threadRestarts.get()).values.find(
        (v) => v.labels.thread === "ingest" && v.labels.reason === "out_of_memory",
      )?.value ?? 0;
    const before = await restarts();
    const res = await post(heavyBody("oom-heavy"), auth());
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(((await res.json()) as { error: string }).error).toMatch(/nothing was stored, send it again/);
    expect(await storedIds("oom-heavy")).toEqual([]);
    await expect.poll(restarts, { timeout: 5_000 }).toBe(before + 1);
    // The restarted thread stores the next body (the first restart is at once; a poll covers its start-up).
    await expect
      .poll(async () => (await post(ndjson(events("oom-after", 3)), auth())).status, { timeout: 20_000 })
      .toBe(200);
    expect(await storedIds("oom-after")).toHaveLength(3);
  }, 60_000);
});
