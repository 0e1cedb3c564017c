import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { insertEvents } from "../../db/sqlite/ingest";
import { sqliteStore } from "../../db/store/store";
import { testCaller, testDb } from "../../test/db";
import { PRESSURE_RETENTION_CANDIDATE } from "../../test/preview-candidates";
import { AppError } from "../errors";
import { computePreview } from "../preview/compute";
import { latestPredictionFor } from "../preview/prediction";
import { previewQueue } from "../preview/service";
import { policyContentHash } from "../control/content-hash";
import { retentionPolicy } from "../../lib/policies/policies";
import { parseEvent, type TelemetryEvent } from "../ingest/events";
import { cachedShare, runScenario, T0 } from "../sim/test-support";
import type { Db } from "../../db/sqlite/client";
import { checkedPreview } from "./previews";

const SECONDS = 420;
const NOW = T0 + SECONDS * 1000;
const WINDOW = { from: T0 + 120_000, to: T0 + SECONDS * 1000 };
const CANDIDATE = PRESSURE_RETENTION_CANDIDATE;

/** The pressure scenario's start configuration (version 0: the console never saw it published). */
const START = {
  frontend: { strip_anthropic_preamble: true },
  autoscaling: { aggregated: { min_replicas: 2, max_replicas: 2 } },
};

let db: Db;
const api = () => testCaller(db, () => NOW);
const operator = (id: number) => testCaller(db, () => NOW, { kind: "user", id, name: `o${id}`, role: "operator" });

async function caught(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TRPCError) return err;
    throw err;
  }
  throw new Error("expected a TRPCError");
}

const details = (e: TRPCError) => (e.cause as { details?: Record<string, unknown> } | undefined)?.details ?? {};

beforeAll(() => {
  db = testDb();
  const events: TelemetryEvent[] = [];
  for (const e of runScenario({ scenario: "pressure", seconds: SECONDS })) {
    const p = parseEvent(JSON.parse(JSON.stringify(e)));
    if (p.ok) events.push(p.event);
  }
  for (let i = 0; i < events.length; i += 2000) insertEvents(db, events.slice(i, i + 2000));
});

describe("previews router", () => {
  it("replays the window under the baseline and the candidate, stores the result, and re-opens it at once", async () => {
    const started = await api().previews.start({
      kind: "retention",
      document: CANDIDATE,
      window: WINDOW,
      baseline: START,
    });
    expect(["queued", "running"]).toContain(started.status);
    let job = started;
    while (job.status === "queued" || job.status === "running") {
      await new Promise((r) => setTimeout(r, 20));
      job = await api().previews.status({ id: started.id });
    }
    expect(job.status).toBe("done");
    const r = job.result!;
    expect(r.window).toEqual(WINDOW);
    expect(r.measured.hit_rate).toBeGreaterThan(0);
    expect(r.baseline.hit_rate).not.toBeNull();
    expect(Math.abs(r.error.hit_rate_points!)).toBeLessThan(8);
    // What the change really does: the simulator over the same minutes with the candidate in force.
    const actual = cachedShare(
      runScenario({ scenario: "pressure", seconds: SECONDS, policies: { retention: CANDIDATE } }),
      WINDOW.from,
      WINDOW.to,
    );
    expect(Math.abs(r.candidate.hit_rate! - actual)).toBeLessThan(0.03);
    expect(r.candidate.hit_rate).not.toBe(r.baseline.hit_rate);
    expect(r.candidate.evictions_by_class.conversation ?? 0).toBeGreaterThan(0);
    expect(r.candidate.evictions_by_class.system ?? 0).toBe(0);
    expect(r.baseline.workers.map((w) => w.worker_id)).toEqual(["w1", "w2"]);
    expect(r.sessions.length).toBeGreaterThan(0);
    expect(r.assumptions.length).toBeGreaterThan(0);
    const again = await api().previews.start({
      kind: "retention",
      document: CANDIDATE,
      window: WINDOW,
      baseline: START,
    });
    expect(again.status).toBe("done");
    expect(again.result).toEqual(r);
    const hash = policyContentHash("retention", retentionPolicy.parse(CANDIDATE));
    expect(await latestPredictionFor(sqliteStore(db), "retention", hash)).toMatchObject({
      hit_rate: r.candidate.hit_rate,
      window: WINDOW,
    });
    expect(await latestPredictionFor(sqliteStore(db), "retention", "0".repeat(64))).toBeNull();
  });

  it("replays the planner for an autoscaling document: GPU-hours in the window", async () => {
    const job = await api().previews.start({
      kind: "autoscaling",
      document: { aggregated: { min_replicas: 1, max_replicas: 2, kv_scale_up: 1, kv_scale_down: 0.99 } },
      window: WINDOW,
      baseline: START,
    });
    const done = (await previewQueue(sqliteStore(db)).wait(job.id)).result!;
    // Two workers through the window as recorded; the candidate's planner scales to one during the warm-up minutes.
    const hours = (WINDOW.to - WINDOW.from) / 3_600_000;
    expect(done.baseline.planner).toEqual({ decisions: [], gpu_hours: 2 * hours });
    expect(done.candidate.planner.gpu_hours).toBeCloseTo(hours, 6);
  });

  it.each([
    [
      "an invalid candidate, field by field",
      { kind: "retention", document: { default: { priority: 500 } } },
      "document.default.priority",
    ],
    ["a window over 24 h", { kind: "routing", document: {}, window: { from: T0 - 86_400_001, to: T0 } }, "window"],
    [
      "a window with no traffic",
      { kind: "routing", document: {}, window: { from: T0 - 7_200_000, to: T0 - 3_600_000 } },
      "window",
    ],
  ])("refuses %s before any replay", async (_name, input, path) => {
    const err = await caught(api().previews.start(input as never));
    expect(err.code).toBe("BAD_REQUEST");
    const errors = details(err).errors as { path: string; message: string }[];
    expect(errors.map((e) => e.path)).toContain(path);
  });

  it("says the limit and that an empty window is empty", async () => {
    const over = await caught(
      api().previews.start({ kind: "routing", document: {}, window: { from: 0, to: 86_400_001 } }),
    );
    expect(over.message).toMatch(/24 h/);
    expect(details(over).limit_ms).toBe(86_400_000);
    const empty = await caught(
      api().previews.start({ kind: "routing", document: {}, window: { from: T0 - 7_200_000, to: T0 - 3_600_000 } }),
    );
    expect(empty.message).toMatch(/no recorded traffic/);
  });

  it("runs at most two at once and shows the others' place; a queued job can be cancelled", async () => {
    const windows = [0, 1, 2, 3].map((k) => ({ from: T0 + 200_000 + k * 1000, to: T0 + 260_000 }));
    const jobs = [];
    for (const [k, w] of windows.entries())
      jobs.push(await operator(10 + k).previews.start({ kind: "routing", document: { temperature: 0.1 }, window: w }));
    expect(jobs.map((j) => j.status)).toEqual(["running", "running", "queued", "queued"]);
    expect(jobs.map((j) => j.place)).toEqual([null, null, 1, 2]);
    expect(await api().previews.cancel({ id: jobs[2]!.id })).toEqual({ cancelled: true });
    expect((await api().previews.status({ id: jobs[3]!.id })).place).toBe(1);
    expect((await api().previews.status({ id: jobs[2]!.id })).status).toBe("cancelled");
    for (const j of jobs) await api().previews.cancel({ id: j.id });
  });

  it("one caller has at most two previews queued or running; a third is 429 until one ends", async () => {
    const start = (k: number) =>
      operator(20).previews.start({
        kind: "routing",
        document: { temperature: 0.2 },
        window: { from: T0 + 200_000 + k * 1000, to: T0 + 260_000 },
      });
    const [a, b] = [await start(0), await start(1)];
    const third = await caught(start(2));
    expect(third.code).toBe("TOO_MANY_REQUESTS");
    expect(third.message).toMatch(/2 previews queued or running \(at most 2\)/);
    expect(details(third).retry_after).toBe(30);
    // Joining an identical job is not a new one; another caller is not held to this one's count.
    expect((await start(1)).id).toBe(b.id);
    const other = await operator(21).previews.start({
      kind: "routing",
      document: { temperature: 0.2 },
      window: WINDOW,
    });
    expect(other.status).not.toBe("failed");
    await api().previews.cancel({ id: other.id });
    await api().previews.cancel({ id: a.id });
    const after = await start(2);
    expect(after.status === "queued" || after.status === "running").toBe(true);
    for (const id of [b.id, after.id]) await api().previews.cancel({ id });
  });
  it("the probe's request (256 workers of 4,194,304 blocks of 1 token over 24 h) is a fast 422 with the estimate", async () => {
    const rss = process.memoryUsage().rss;
    const err = await caught(
      api().previews.start({
        kind: "retention",
        document: {},
        window: { from: NOW - 86_400_000, to: NOW },
        cluster: { workers: 256, kv_total_blocks: 4_194_304, block_size: 1 },
      }),
    );
    expect(err.code).toBe("UNPROCESSABLE_CONTENT");
    expect(err.message).toMatch(
      /would need about [\d,]+ MB of memory; the limit is 1,024 MB \(SWITCHYARD_PREVIEW_MEMORY_MB\)/,
    );
    expect(details(err)).toMatchObject({ limit_mb: 1024 });
    // At most 32 of the 256 workers are built: both runs' pools alone are 2 × 32 × 4,194,304 × 48 bytes.
    expect(details(err).estimate_mb as number).toBeGreaterThan(12_288);
    // The bounds it broke are listed beside it, each naming the field.
    expect((details(err).errors as { path: string }[]).map((e) => e.path)).toEqual([
      "cluster.workers",
      "cluster.kv_total_blocks",
      "cluster.block_size",
    ]);
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
  });

  it("an override within memory but out of bounds is a 422 naming the bound", async () => {
    const err = await caught(
      api().previews.start({
        kind: "routing",
        document: {},
        window: WINDOW,
        cluster: { workers: 2, kv_total_blocks: 2500, block_size: 16 },
      }),
    );
    expect(err.code).toBe("UNPROCESSABLE_CONTENT");
    expect(err.message).toBe(
      "the cluster override is out of bounds: cluster.block_size no smaller than the recorded 64 tokens per block (the recorded chains cannot be split finer)",
    );
  });

  it("replays the largest override a small limit allows, within that limit; one block more is refused", async () => {
    const LIMIT_MB = 160;
    const MB = 1024 * 1024;
    // The recorded cluster is 2 workers of 2,500 blocks: at most 18 workers, at most 64,000 blocks each.
    const input = (kv: number) => ({
      kind: "retention",
      document: CANDIDATE,
      window: WINDOW,
      baseline: START,
      cluster: { workers: 18, kv_total_blocks: kv, block_size: 64 },
    });
    const check = (kv: number) => checkedPreview(sqliteStore(db), input(kv), NOW, LIMIT_MB);
    const fits = (kv: number) =>
      check(kv).then(
        () => true,
        (err: unknown) => {
          if (err instanceof AppError && err.code === "UNPROCESSABLE") return false;
          throw err;
        },
      );
    let [lo, hi] = [2_500, 64_000];
    expect(await fits(lo)).toBe(true);
    expect(await fits(hi)).toBe(false);
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await fits(mid)) lo = mid;
      else hi = mid;
    }
    await expect(check(hi)).rejects.toThrow(/the limit is 160 MB \(SWITCHYARD_PREVIEW_MEMORY_MB\)/);
    const before = process.memoryUsage().rss;
    let peak = before;
    const result = await computePreview(db, await check(lo), {
      progress: () => (peak = Math.max(peak, process.memoryUsage().rss)),
    });
    expect(result.cluster).toMatchObject({ workers: { aggregated: 18 }, kv_blocks: { aggregated: lo } });
    expect(result.candidate.requests).toBeGreaterThan(0);
    expect(peak - before).toBeLessThan(LIMIT_MB * MB);
  }, 60_000);

  it("needs the operator role", async () => {
    const viewer = testCaller(db, () => NOW, { kind: "user", id: 3, name: "v", role: "viewer" });
    const err = await caught(viewer.previews.start({ kind: "routing", document: {}, window: WINDOW }));
    expect(err.code).toBe("FORBIDDEN");
  });
});
