import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { minimal, ndjson, type Raw } from "@/test/events";
import { auth, events, ingestRouteHarness, MiB, NDJSON } from "./route-harness";

// The route with the ingest worker pool installed: a refusal raised in a worker thread keeps its status.
const { file, storedIds, post } = ingestRouteHarness();

describe("POST /api/ingest through the worker pool: every refusal keeps its status", () => {
  let close: () => Promise<void>;

  beforeAll(async () => {
    // Migrated before the pool's thread opens it, as the server does (else both connections run the migrations).
    (await import("@/server/runtime")).serverEngine().db!;
    const { AppError: RouteAppError } = await import("@/server/errors");
    vi.resetModules();
    const { IngestPool } = await import("@/server/ingest/worker-pool");
    const { AppError: PoolAppError } = await import("@/server/errors");
    expect(PoolAppError).not.toBe(RouteAppError);
    const pool = new IngestPool(file(), 1);
    pool.install();
    close = () => pool.close();
  });

  afterAll(async () => {
    await close?.();
  });

  it.each([
    ["NDJSON", NDJSON, (e: Raw[]) => ndjson(e)],
    ["a JSON array", "application/json", (e: Raw[]) => JSON.stringify(e)],
  ])("10,001 events as %s → 413 with the limit", async (name, type, encode) => {
    const prefix = `pool-many-${name.replace(/\W/g, "")}`;
    const res = await post(encode(events(prefix, 10_001)), auth(type));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.stringMatching(/^too many events: .*at most 10000 per request/) });
    expect(await storedIds(prefix)).toEqual([]);
  });

  it.each<[string, number, string, string, RegExp]>([
    ["invalid JSON as application/json", 400, "application/json", '[{"id":"pool-bad-1","kind":"kv.cleared"', /JSON/],
    ["a Content-Type the route refuses", 415, "text/plain", "{}", /Content-Type/],
  ])("%s → %i with its message", async (_name, status, type, body, message) => {
    const res = await post(body, auth(type));
    expect(res.status).toBe(status);
    expect((await res.json()) as { error: string }).toEqual({ error: expect.stringMatching(message) });
  });

  it("a body over 8 MiB → 413", async () => {
    const res = await post(ndjson(events("pool-big", 1)) + " ".repeat(8 * MiB), auth());
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.stringContaining("8 MiB") });
  });

  it("counts each batch's results by kind and sender in this thread's metrics, though the workers stored it", async () => {
    const { metrics } = await import("@/server/observability/metrics");
    const count = async (labels: Record<"kind" | "source" | "result", string>) =>
      (await metrics().ingestEvents.get()).values.find(
        (v) => v.labels.kind === labels.kind && v.labels.source === labels.source && v.labels.result === labels.result,
      )?.value ?? 0;
    const body =
      ndjson([
        ...events("pool-count", 3),
        minimal.request({ id: "pool-count-r" }),
        minimal.request({ id: "pool-count-bad", cached_tokens: 5_000 }),
      ]) + "{nope\n";
    const headers = { ...auth(), "x-switchyard-source": "metrics-test" };
    expect((await post(body, headers)).status).toBe(200);
    expect((await post(ndjson(events("pool-count", 3)), headers)).status).toBe(200);
    expect(await count({ kind: "kv.cleared", source: "metrics-test", result: "accepted" })).toBe(3);
    expect(await count({ kind: "kv.cleared", source: "metrics-test", result: "duplicate" })).toBe(3);
    expect(await count({ kind: "request", source: "metrics-test", result: "accepted" })).toBe(1);
    expect(await count({ kind: "request", source: "metrics-test", result: "rejected" })).toBe(1);
    expect(await count({ kind: "unknown", source: "metrics-test", result: "rejected" })).toBe(1);
  });

  it("10,000 {} lines: a reply under 20 KB with the counts right, though the metrics count every item", async () => {
    const { metrics } = await import("@/server/observability/metrics");
    const rejected = async () =>
      (await metrics().ingestEvents.get()).values.find(
        (v) => v.labels.kind === "unknown" && v.labels.source === "pool-junk" && v.labels.result === "rejected",
      )?.value ?? 0;
    const res = await post(Array<string>(10_000).fill("{}").join("\n"), {
      ...auth(),
      "x-switchyard-source": "pool-junk",
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.length).toBeLessThan(20_000);
    expect(JSON.parse(text)).toMatchObject({ accepted: 0, duplicate: 0, rejected: 10_000, errors_truncated: 9_900 });
    expect(await rejected()).toBe(10_000);
  });

  it("an accepted batch is stored by the pool", async () => {
    const res = await post(ndjson(events("pool-ok", 3)), auth());
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ accepted: 3, rejected: 0 });
    expect(await storedIds("pool-ok")).toHaveLength(3);
  });
});
