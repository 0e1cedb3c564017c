import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/db/sqlite/client";
import { insertUser } from "@/db/store/accounts";
import { SESSION_COOKIE } from "@/server/auth/constants";
import { startSession } from "@/server/auth/sign-in-sessions";
import { sqliteStore } from "@/db/store/store";
import type { ImportSummary } from "@/server/sources/dynamo-trace/import";
import type { PreviewResult } from "@/server/preview/types";
import { PreviewQueue } from "@/server/preview/queue";
import { setPreviewRunner } from "@/server/preview/runners";
import { threadRunner } from "@/server/preview/thread-runner";
import { useTempServerEnv } from "@/test/server-env";

const TOKEN = "sy_test_token_preview_0123456789abc";
const ORIGIN = "http://localhost:3000";
const START = 1_764_400_000_000;

let restore: () => Promise<void>;
let importPost: typeof import("../../import/route").POST;
let previewPost: typeof import("./route").POST;
let db: Db;

beforeAll(async () => {
  let file: string;
  ({ restore, file } = await useTempServerEnv("switchyard-preview-route-", TOKEN));
  // As the server process does: previews in worker threads on their own connections.
  setPreviewRunner(threadRunner(file));
  ({ POST: importPost } = await import("../../import/route"));
  ({ POST: previewPost } = await import("./route"));
  db = (await import("@/server/runtime")).serverEngine().db!;
});

afterAll(async () => {
  setPreviewRunner(undefined);
  db?.$client.close();
  await restore();
});

const signIn = async (role: string) => {
  const id = await insertUser(
    sqliteStore(db),
    { username: `u-${role}-${Math.random().toString(36).slice(2, 8)}`, role, passwordHash: null },
    Date.now(),
  );
  return `${SESSION_COOKIE}=${(await startSession(sqliteStore(db), id, Date.now(), 60_000)).value}`;
};
const asOperator = async () => ({ cookie: await signIn("operator"), origin: ORIGIN, host: "localhost:3000" });

/** A small Mooncake trace: two sessions sharing a 4-block prefix, a request every 10 s. */
function trace(): string {
  return Array.from({ length: 30 }, (_, i) =>
    JSON.stringify({
      timestamp: i * 10_000,
      input_length: 6 * 16,
      output_length: 4,
      hash_ids: [1, 2, 3, 4, 100 + (i % 2), 200 + i],
      session_id: `s${i % 2}`,
    }),
  ).join("\n");
}

const upload = (body: BodyInit, name: string, query: string) =>
  importPost(
    new Request(`${ORIGIN}/api/import?${query}`, {
      method: "POST",
      body,
      headers: { authorization: `Bearer ${TOKEN}`, "x-switchyard-filename": name },
    }),
  );

const preview = async (body: unknown, headers?: Record<string, string>) =>
  previewPost(
    new Request(`${ORIGIN}/api/policies/preview`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json", ...(headers ?? (await asOperator())) },
    }),
  );

describe("Mooncake import and POST /api/policies/preview", () => {
  it("refuses a bad Mooncake file naming file, line and field, and stores nothing", async () => {
    const bad = `${trace().split("\n").slice(0, 2).join("\n")}\n{"timestamp":1,"output_length":2,"hash_ids":[1]}\n`;
    const s = (await (await upload(bad, "bad.jsonl", "format=mooncake&block_size=16")).json()) as ImportSummary;
    expect(s.fatal).toBe("bad.jsonl:3: input_length: is missing");
    expect(s.errors).toEqual([{ line: 3, message: "input_length: is missing" }]);
    expect(db.$client.prepare("SELECT count(*) FROM requests").pluck().get()).toBe(0);
    const res = await upload(bad, "bad.jsonl", "format=mooncake&block_size=0");
    expect(res.status).toBe(400);
  });

  it("imports a gzip Mooncake trace as one session per session_id and previews it on the cluster override", async () => {
    const s = (await (
      await upload(gzipSync(trace()), "t.jsonl.gz", `format=mooncake&block_size=16&start=${START}`)
    ).json()) as ImportSummary;
    expect(s).toMatchObject({ records: 30, accepted: 30, fatal: null });
    expect(db.$client.prepare("SELECT count(DISTINCT session_id) FROM requests").pluck().get()).toBe(2);
    const window = { from: START, to: START + 300_000 };
    const res = await preview({
      kind: "routing",
      document: { temperature: 0 },
      window,
      cluster: { workers: 1, kv_total_blocks: 64, block_size: 16 },
    });
    expect(res.status).toBe(200);
    const r = (await res.json()) as PreviewResult;
    // Every request after the first of its session finds the 5 blocks it shares with it; the first of s1 finds 4.
    expect(r.baseline.hit_rate).toBeCloseTo((4 * 16 + 28 * 5 * 16) / (30 * 96), 6);
    expect(r.candidate.hit_rate).toBe(r.baseline.hit_rate);
    expect(r.measured.hit_rate).toBeNull();
    expect(r.cluster.source).toBe("override");
    expect(r.assumptions.join("\n")).toMatch(/capacities came from the cluster override/);
  });

  it.each([
    ["an invalid document", { kind: "routing", document: { temperature: -1 } }, 400, "document.temperature"],
    ["a window over 24 h", { kind: "routing", document: {}, window: { from: 0, to: 86_400_001 } }, 400, "window"],
    ["an empty window", { kind: "routing", document: {}, window: { from: 0, to: 60_000 } }, 400, "window"],
  ])("refuses %s with field errors", async (_, body, status, path) => {
    const res = await preview(body);
    expect(res.status).toBe(status);
    const j = (await res.json()) as { error: string; errors: { path: string }[] };
    expect(j.errors.map((e) => e.path)).toContain(path);
  });

  it("needs the operate scope", async () => {
    expect((await preview({ kind: "routing", document: {} }, {})).status).toBe(401);
    const viewer = { cookie: await signIn("viewer"), origin: ORIGIN, host: "localhost:3000" };
    expect((await preview({ kind: "routing", document: {} }, viewer)).status).toBe(403);
  });
});

describe("POST /api/policies/preview within bounds (issue 32's probe)", () => {
  const window = { from: START, to: START + 300_000 };

  it("answers the probe's request with a fast 422 saying the estimate and the limit, and takes no memory", async () => {
    const rss = process.memoryUsage().rss;
    const res = await preview({
      kind: "retention",
      document: {},
      window: { from: START + 300_000 - 86_400_000, to: START + 300_000 },
      cluster: { workers: 256, kv_total_blocks: 4_194_304, block_size: 1 },
    });
    expect(res.status).toBe(422);
    const j = (await res.json()) as {
      error: string;
      estimate_mb: number;
      limit_mb: number;
      errors: { path: string }[];
    };
    expect(j.error).toMatch(
      /would need about [\d,]+ MB of memory; the limit is 1,024 MB \(SWITCHYARD_PREVIEW_MEMORY_MB\)/,
    );
    expect(j.limit_mb).toBe(1024);
    // The simulator builds at most 32 of the 256 workers: both runs' pools alone are 2 × 32 × 4,194,304 × 48 bytes.
    expect(j.estimate_mb).toBeGreaterThan(12_288);
    expect(j.errors.map((e) => e.path)).toContain("cluster.block_size");
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
  });

  it("replays the largest allowed override and stays under the limit", async () => {
    // The Mooncake window records no worker (assumed 10,500 blocks) and chains of 16 tokens: at most 17 workers of
    // 84,000 blocks; the estimate is under the 1,024 MB limit, and so is what the replay's threads take.
    const before = process.memoryUsage().rss;
    let peak = before;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const res = await preview({
      kind: "routing",
      document: { temperature: 0.5 },
      window,
      cluster: { workers: 17, kv_total_blocks: 84_000, block_size: 16 },
    });
    clearInterval(sample);
    expect(res.status).toBe(200);
    expect(((await res.json()) as PreviewResult).cluster.source).toBe("override");
    expect(peak - before).toBeLessThan(1024 * 1024 * 1024);
    const over = await preview({
      kind: "routing",
      document: {},
      window,
      cluster: { workers: 18, kv_total_blocks: 84_000, block_size: 16 },
    });
    expect(over.status).toBe(422);
    expect(((await over.json()) as { error: string }).error).toMatch(/cluster\.workers at most 17/);
  });

  it("refuses a body over 1 MiB with 413 before reading on", async () => {
    const res = await previewPost(
      new Request(`${ORIGIN}/api/policies/preview`, {
        method: "POST",
        body: JSON.stringify({ kind: "routing", document: { pad: "x".repeat(1_100_000) } }),
        headers: { "content-type": "application/json", ...(await asOperator()) },
      }),
    );
    expect(res.status).toBe(413);
  });

  it("a full queue or a caller's third preview is 429 with Retry-After", async () => {
    const spy = vi.spyOn(PreviewQueue.prototype, "submit").mockImplementationOnce(async () => {
      const { AppError } = await import("@/server/errors");
      throw new AppError("TOO_MANY_REQUESTS", "8 previews are waiting (at most 8): try again in 30 s", {
        retry_after: 30,
      });
    });
    const res = await preview({ kind: "routing", document: {}, window });
    spy.mockRestore();
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(((await res.json()) as { error: string }).error).toMatch(/at most 8/);
  });

  it("a client that goes away gives up its job: it is cancelled", async () => {
    const controller = new AbortController();
    const submit = PreviewQueue.prototype.submit;
    let jobId = "";
    const spy = vi.spyOn(PreviewQueue.prototype, "submit").mockImplementationOnce(async function (
      this: PreviewQueue,
      ...args: Parameters<PreviewQueue["submit"]>
    ) {
      const view = await submit.apply(this, args);
      jobId = view.id;
      controller.abort();
      return view;
    });
    const res = await previewPost(
      new Request(`${ORIGIN}/api/policies/preview`, {
        method: "POST",
        body: JSON.stringify({ kind: "routing", document: { temperature: 0.7 }, window }),
        headers: { "content-type": "application/json", ...(await asOperator()) },
        signal: controller.signal,
      }),
    );
    spy.mockRestore();
    expect(jobId).not.toBe("");
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toBe("the preview was cancelled");
  });
});
