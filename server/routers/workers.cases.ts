import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../db/store/store";
import { decisionsLost } from "../../db/store/worker-activity";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { parseEvent, type TelemetryEvent } from "../ingest/events";

// The workers procedures on seeded data, written once and run on each engine (workers.test.ts: SQLite;
// workers.pg.test.ts: PostgreSQL): the same figures from either.

const T0 = 1_764_417_600_000;
const MIN = 60_000;
const NOW = T0 + 60 * MIN;
const FROM = NOW - 15 * MIN;

type Raw = Record<string, unknown>;
let seq = 0;
const ev = (kind: string, ts: number, o: Raw): TelemetryEvent => {
  const r = parseEvent({ id: `${kind}-${++seq}`, kind, ts, ...o });
  if (!r.ok) throw new Error(r.error);
  return r.event;
};
const up = (w: string, ts: number, role = "decode") =>
  ev("worker.up", ts, { worker_id: w, role, model: "m", kv_total_blocks: 1000, block_size: 16 });
const down = (w: string, ts: number) => ev("worker.down", ts, { worker_id: w, reason: "drained" });
const stats = (w: string, ts: number, q: number, h: number, active = 0, total = 1000, running = 0, waiting = 0) =>
  ev("worker.stats", ts, {
    worker_id: w,
    kv_active_blocks: active,
    kv_total_blocks: total,
    requests_running: running,
    requests_waiting: waiting,
    prefix_query_tokens: q,
    prefix_hit_tokens: String(h),
  });
const cand = (w: string, overlap: number, cost: number) => ({
  worker_id: w,
  overlap_blocks: overlap,
  prefill_blocks: 10 - overlap,
  decode_blocks: 5,
  cost,
});
const decision = (ts: number, chosen: string, workers = ["w1", "w2", "w3"]) =>
  ev("route.decision", ts, {
    request_id: `r-${ts}`,
    prompt_blocks: 10,
    chosen_worker_id: chosen,
    candidates: workers.map((w, i) => cand(w, i + 2, 20 - i)),
    overlap_credit: 1,
    prefill_load_scale: 1,
    temperature: 0,
  });
const request = (w: string, at: number) =>
  ev("request", at, {
    request_id: `q-${at}-${w}`,
    api: "messages",
    model: "m",
    worker_id: w,
    arrived_at: at,
    input_tokens: 10,
    cached_tokens: 5,
    output_tokens: 1,
    status: "ok",
  });
const stored = (w: string, ts: number, blocks: number, retention_class?: string) =>
  ev("kv.stored", ts, {
    worker_id: w,
    block_hashes: Array.from({ length: blocks }, (_, i) => String(ts + i)),
    parent_hash: null,
    retention_class,
  });
const removed = (w: string, ts: number, blocks: number, reason: string) =>
  ev("kv.removed", ts, {
    worker_id: w,
    block_hashes: Array.from({ length: blocks }, (_, i) => String(ts + i)),
    reason,
  });

function seed(): TelemetryEvent[] {
  return [
    // w1: 100 of 100 tokens hit in one minute, 80,000 of 100,000 in a later one → 80,100 / 100,100 over the range.
    up("w1", FROM - 30 * MIN),
    stats("w1", FROM - 30_000, 0, 0),
    stats("w1", FROM + MIN, 100, 100),
    stats("w1", FROM + 5 * MIN, 100_100, 80_100),
    stats("w1", NOW - 30_000, 100_100, 80_100, 600, 1000, 3, 1),
    // w2 joined during the range: 10 of 100 tokens hit.
    up("w2", FROM + 2 * MIN, "prefill"),
    stats("w2", FROM + 3 * MIN, 50, 50),
    stats("w2", NOW - 5 * MIN, 150, 60),
    stats("w2", NOW - 10_000, 150, 60, 10, 100),
    // w3 left during the range; w4 stopped reporting 5 minutes before the end; w5 only reported long before.
    up("w3", FROM - 30 * MIN),
    stats("w3", FROM + MIN, 0, 0, 500, 1000),
    down("w3", NOW - 5 * MIN),
    stats("w4", T0, 0, 0),
    stats("w4", NOW - 5 * MIN, 0, 0, 250, 1000),
    stats("w5", T0, 0, 0),
    // routing: w1 wins 6, w2 3, w3 1 in range; the w3 win did not list w2; one decision before the range.
    ...Array.from({ length: 10 }, (_, k) =>
      decision(FROM + k * MIN, k < 6 ? "w1" : k < 9 ? "w2" : "w3", k === 9 ? ["w1", "w3"] : undefined),
    ),
    decision(FROM - MIN, "w2"),
    ...[1, 2, 3, 4].map((k) => request("w1", FROM + k * MIN)),
    request("w1", FROM - MIN),
    request("w2", FROM + 4 * MIN),
    stored("w1", FROM + MIN, 4, "system_prompt"),
    stored("w1", FROM + MIN + 1, 2, "conversation"),
    stored("w1", FROM + 6 * MIN, 3, "conversation"),
    stored("w1", FROM + 7 * MIN, 1),
    removed("w1", FROM + 8 * MIN, 2, "capacity"),
    removed("w1", FROM + 9 * MIN, 1, "capacity"),
    removed("w1", FROM + 9 * MIN + 5, 3, "ttl"),
    removed("w1", FROM - MIN, 7, "agent_end"),
    ev("kv.cleared", FROM + 10 * MIN, { worker_id: "w1" }),
  ];
}

export function workersCases(e: PageEngine): void {
  describe.skipIf(e.skip)(`workers procedures on seeded data on ${e.engine}`, () => {
    let seeded: PageStore;
    let store: Store;
    let caller: ReturnType<PageStore["caller"]>;
    beforeAll(async () => {
      seeded = await e.seeded(seed());
      store = seeded.store;
      caller = seeded.caller(() => NOW);
    });
    afterAll(() => seeded.close());

    it("lists the workers with telemetry in the range, with their state and joined/left marks", async () => {
      const { workers, from, to, live } = await caller.workers.list({ preset: "15m" });
      expect({ from, to, live }).toEqual({ from: FROM, to: NOW, live: true });
      expect(workers.map((w) => [w.workerId, w.state, w.joined, w.left])).toEqual([
        ["w1", "up", false, false],
        ["w2", "up", true, false],
        ["w3", "down", false, true],
        ["w4", "stale", false, false],
      ]);
    });

    it("hit rate is hit tokens over queried tokens over the range, not a mean of ratios", async () => {
      const { workers } = await caller.workers.list({ preset: "15m" });
      const w1 = workers.find((w) => w.workerId === "w1")!;
      expect(w1.hitRate).toBeCloseTo(80_100 / 100_100, 12);
      expect(w1.queryTokens).toBe(100_100);
      expect(Math.abs(w1.hitRate! - (1 + 0.8) / 2)).toBeGreaterThan(0.09);
      expect(workers.find((w) => w.workerId === "w2")!.hitRate).toBeCloseTo(0.1, 12);
      expect(workers.find((w) => w.workerId === "w4")!.hitRate).toBeNull();
    });

    it("utilization, running and waiting come from each worker's latest sample in range", async () => {
      const { workers } = await caller.workers.list({ preset: "15m" });
      const pick = (id: string) => workers.find((w) => w.workerId === id)!;
      expect(pick("w1")).toMatchObject({ kvUtilization: 0.6, running: 3, waiting: 1, lastSeen: NOW - 30_000 });
      expect(pick("w2").kvUtilization).toBeCloseTo(0.1, 12);
      expect(pick("w4").kvUtilization).toBe(0.25);
    });

    it("routing share is the worker's share of the range's route decisions", async () => {
      const { workers } = await caller.workers.list({ preset: "15m" });
      expect(Object.fromEntries(workers.map((w) => [w.workerId, w.routingShare]))).toEqual({
        w1: 0.6,
        w2: 0.3,
        w3: 0.1,
        w4: 0,
      });
    });

    it("an explicit past range sees the state then: w2 not yet joined, w3 still up, w5 long silent", async () => {
      const { workers } = await caller.workers.list({ from: FROM - 20 * MIN, to: FROM + 90_000 });
      expect(workers.map((w) => [w.workerId, w.state, w.joined, w.left])).toEqual([
        ["w1", "up", false, false],
        ["w3", "up", false, false],
        ["w4", "stale", false, false],
      ]);
    });

    it("series over 15 minutes reads the 10 s rollup in 10 s buckets; buckets without samples are absent", async () => {
      const s = await caller.workers.series({ range: { preset: "15m" }, workerId: "w1" });
      expect(s).toMatchObject({ step: 10_000, source: "10s" });
      expect(s.workers).toEqual([
        { workerId: "w1", t: [FROM + MIN, FROM + 5 * MIN, NOW - 30_000], util: [0, 0, 0.6], hitRate: [1, 0.8, null] },
      ]);
    });

    it("series for all workers buckets the same way as for one", async () => {
      const all = await caller.workers.series({ range: { preset: "15m" } });
      const one = await caller.workers.series({ range: { preset: "15m" }, workerId: "w1" });
      expect(all.workers.map((w) => w.workerId)).toEqual(["w1", "w2", "w3", "w4"]);
      expect(all.workers[0]).toEqual(one.workers[0]);
      expect(all.workers[1]!.hitRate).toEqual([null, 0.1, null]);
    });

    it.each(["15m", "1h", "24h"] as const)(
      "series of one chart (%s) gives that chart's column as both do, the other empty",
      async (preset) => {
        const both = await caller.workers.series({ range: { preset } });
        expect(both.workers.length).toBeGreaterThan(0);
        const util = await caller.workers.series({ range: { preset }, chart: "util" });
        const hit = await caller.workers.series({ range: { preset }, chart: "hitRate" });
        expect(util.workers).toEqual(both.workers.map((w) => ({ ...w, hitRate: [] })));
        expect(hit.workers).toEqual(both.workers.map((w) => ({ ...w, util: [] })));
        const one = await caller.workers.series({ range: { preset }, workerId: "w1", chart: "hitRate" });
        expect(one.workers).toEqual(hit.workers.filter((w) => w.workerId === "w1"));
      },
    );

    it("series over 24 hours reads rollups in 15 min buckets and agrees with the raw totals", async () => {
      const s = await caller.workers.series({ range: { preset: "24h" } });
      expect(s).toMatchObject({ step: 15 * MIN, source: "15m" });
      const w1 = s.workers.find((w) => w.workerId === "w1")!;
      expect(w1.t).toEqual([T0 + 30 * MIN, T0 + 45 * MIN]);
      expect(w1.hitRate[0]).toBeNull();
      expect(w1.hitRate[1]).toBe(80_100 / 100_100);
      expect(s.workers.map((w) => w.workerId)).toEqual(["w1", "w2", "w3", "w4", "w5"]);
    });

    it("series over 3 hours sums 1-minute rows into 2-minute buckets per worker", async () => {
      const s = await caller.workers.series({ range: { from: NOW - 180 * MIN, to: NOW } });
      expect(s).toMatchObject({ step: 2 * MIN, source: "1m" });
      expect(s.workers.map((w) => w.workerId)).toEqual(["w1", "w2", "w3", "w4", "w5"]);
      expect(s.workers.slice(0, 2)).toEqual([
        {
          workerId: "w1",
          t: [T0 + 44 * MIN, T0 + 46 * MIN, T0 + 50 * MIN, T0 + 58 * MIN],
          util: [0, 0, 0, 0.6],
          hitRate: [null, 1, 0.8, null],
        },
        {
          workerId: "w2",
          t: [T0 + 48 * MIN, T0 + 54 * MIN, T0 + 58 * MIN],
          util: [0, 0, 0.1],
          hitRate: [null, 0.1, null],
        },
      ]);
    });

    it("byId: requests served, routing decisions won and lost, evictions by reason", async () => {
      const d = await caller.workers.byId({ id: "w2", range: { preset: "15m" } });
      expect(d.summary).toMatchObject({ workerId: "w2", role: "prefill", joined: true, won: 3, routingShare: 0.3 });
      expect(d.requestsServed).toBe(1);
      // w2 first reported at FROM + 2 min: the two decisions before that are not scanned; of the 8 after, it lost 4.
      expect(d.lost).toMatchObject({ count: 4, scanned: 8, truncated: false });
      expect(d.lost.recent[0]).toEqual({
        ts: FROM + 5 * MIN,
        requestId: `r-${FROM + 5 * MIN}`,
        winnerId: "w1",
        overlap: 3,
        cost: 19,
        winnerOverlap: 2,
        winnerCost: 20,
      });
      const w1 = await caller.workers.byId({ id: "w1", range: { preset: "15m" } });
      expect(w1.requestsServed).toBe(4);
      expect(w1.lost.count).toBe(4);
      expect(w1.removals).toEqual([
        { reason: "capacity", blocks: 3, events: 2 },
        { reason: "ttl", blocks: 3, events: 1 },
        { reason: "cleared", blocks: 0, events: 1 },
      ]);
    });

    it("lost decisions are counted among the latest decisions scanned, and say when the range held more", async () => {
      expect(await decisionsLost(store, "w2", FROM, NOW, 5)).toMatchObject({
        scanned: 5,
        lost: 1,
        truncated: true,
      });
      expect(await decisionsLost(store, "w2", FROM, NOW, 10)).toMatchObject({
        scanned: 10,
        lost: 6,
        truncated: false,
      });
    });

    it("blocksByClass: blocks stored per bucket and retention class; unreported class is null", async () => {
      const b = await caller.workers.blocksByClass({ id: "w1", range: { preset: "15m" } });
      expect(b.rows).toEqual([
        { t: FROM + MIN, retentionClass: "conversation", blocks: 2 },
        { t: FROM + MIN, retentionClass: "system_prompt", blocks: 4 },
        { t: FROM + 6 * MIN, retentionClass: "conversation", blocks: 3 },
        { t: FROM + 7 * MIN, retentionClass: null, blocks: 1 },
      ]);
    });

    it("an unknown worker is NOT_FOUND", async () => {
      const err = await caller.workers.byId({ id: "nope", range: { preset: "15m" } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TRPCError);
      expect((err as TRPCError).code).toBe("NOT_FOUND");
    });
  });

  describe.skipIf(e.skip)(`workers' latest sample where raw samples aged out on ${e.engine}`, () => {
    it("takes the latest per-minute rollup's means, timestamped at its minute; a worker with raw samples keeps them", async () => {
      const m = NOW - 5 * MIN - ((NOW - 5 * MIN) % MIN);
      const seeded = await e.seeded([
        up("w1", FROM - MIN),
        up("w2", FROM - MIN),
        stats("w1", m - MIN + 10_000, 0, 0, 900, 1000, 9, 9),
        stats("w1", m + 10_000, 0, 0, 200, 1000, 2, 0),
        stats("w1", m + 20_000, 0, 0, 400, 1000, 4, 2),
        stats("w2", NOW - MIN, 0, 0, 50, 100, 1, 1),
      ]);
      try {
        const w = seeded.store.t.workerStats;
        await seeded.store.db.delete(w).where(eq(w.workerId, "w1"));
        const { workers } = await seeded.caller(() => NOW).workers.list({ preset: "15m" });
        const pick = (id: string) => workers.find((x) => x.workerId === id)!;
        expect(pick("w1")).toMatchObject({ kvUtilization: 0.3, running: 3, waiting: 1 });
        expect(pick("w2")).toMatchObject({ kvUtilization: 0.5, running: 1, waiting: 1 });
      } finally {
        await seeded.close();
      }
    });
  });

  describe.skipIf(e.skip)(`workers procedures without data and with bad input on ${e.engine}`, () => {
    let empty: PageStore;
    let caller: ReturnType<PageStore["caller"]>;
    beforeAll(async () => {
      empty = await e.seeded([]);
      caller = empty.caller(() => NOW);
    });
    afterAll(() => empty.close());

    it("an empty database lists nothing and has no series", async () => {
      expect((await caller.workers.list({ preset: "1h" })).workers).toEqual([]);
      expect((await caller.workers.series({ range: { preset: "1h" } })).workers).toEqual([]);
    });

    it.each<[string, () => Promise<unknown>]>([
      ["list without a range", () => caller.workers.list({} as never)],
      ["series without a range", () => caller.workers.series({} as never)],
      ["series of an unknown chart", () => caller.workers.series({ range: { preset: "1h" }, chart: "kv" as never })],
      ["byId with an empty id", () => caller.workers.byId({ id: "", range: { preset: "1h" } })],
      ["byId with a reversed range", () => caller.workers.byId({ id: "w1", range: { from: NOW, to: FROM } })],
    ])("%s → BAD_REQUEST", async (_name, call) => {
      const err = await call().catch((e: unknown) => e);
      expect((err as TRPCError).code).toBe("BAD_REQUEST");
    });
  });
}
