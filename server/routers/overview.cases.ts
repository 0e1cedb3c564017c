import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { minimal, parsed, stats, T0, type Raw } from "../../test/events";
import { PRESETS, type Preset } from "../../lib/time-range";
import type { EventKind } from "../ingest/events";

// overview.summary on seeded data, written once and run on each engine (overview.test.ts: SQLite, with attribution's
// lag, which is SQLite's only; overview.pg.test.ts: PostgreSQL): the same figures from either.

const FIXED_NOW = T0 + 3_600_000;
const MIN = 60_000;
const FROM = FIXED_NOW - 15 * MIN;

type Caller = ReturnType<PageStore["caller"]>;

/** TTFTs (ms) of the 20 in-range requests, deliberately unsorted. */
const TTFTS = [130, 20, 200, 50, 110, 10, 180, 70, 90, 160, 30, 140, 60, 190, 120, 40, 170, 80, 150, 100];

function requestEvents(): Raw[] {
  const raws: Raw[] = TTFTS.map((ttft, k) => {
    const arrived = FROM + k * 40_000;
    const session = arrived >= FIXED_NOW - 5 * MIN ? (k % 2 ? "s1" : "s2") : "s-old";
    return minimal.request({
      id: `req-${k}`,
      request_id: `r${k}`,
      ts: arrived,
      arrived_at: arrived,
      first_token_at: arrived + ttft,
      session_id: session,
    });
  });
  raws.push(minimal.request({ id: "req-no-ttft", ts: FIXED_NOW - MIN, arrived_at: FIXED_NOW - MIN, session_id: "s1" }));
  raws.push(
    minimal.request({
      id: "req-no-session",
      ts: FIXED_NOW - MIN,
      arrived_at: FIXED_NOW - MIN,
      first_token_at: FIXED_NOW - MIN + 100,
    }),
  );
  // outside [from, to): before, exactly at `to`, after
  for (const [id, at] of [
    ["req-before", FROM - 1],
    ["req-at-to", FIXED_NOW],
    ["req-after", FIXED_NOW + 5_000],
  ] as const) {
    raws.push(minimal.request({ id, ts: at, arrived_at: at, first_token_at: at + 1, session_id: "s-outside" }));
  }
  return raws;
}

const kv = (active: number, total: number) => ({ kv_active_blocks: active, kv_total_blocks: total });

function workerEvents(): Raw[] {
  return [
    minimal["worker.up"]({ id: "up-w1", worker_id: "w1", role: "decode", ts: FROM - 30 * MIN }),
    minimal["worker.up"]({ id: "up-w2", worker_id: "w2", role: "prefill", ts: FROM - 30 * MIN }),
    minimal["worker.up"]({ id: "up-w5", worker_id: "w5", role: "decode", ts: FROM - 30 * MIN }),
    // w1: a big worker (hit rate 0.9). Its delta before the range (500 of 500) must not count.
    stats("w1", FROM - 10 * MIN, 0, 0, kv(0, 1000)),
    stats("w1", FROM - 5 * MIN, 500, 500, kv(0, 1000)),
    stats("w1", FIXED_NOW - 10 * MIN, 500, 500, kv(0, 1000)),
    stats("w1", FIXED_NOW - 5 * MIN, 100_500, 90_500, kv(0, 1000)),
    stats("w1", FIXED_NOW - 50_000, 100_500, 90_500, kv(1000, 1000)),
    stats("w1", FIXED_NOW - 30_000, 100_500, 90_500, kv(600, 1000)),
    // w2: a small worker (hit rate 0.1)
    stats("w2", FIXED_NOW - 10 * MIN, 50, 50, kv(0, 100)),
    stats("w2", FIXED_NOW - 5 * MIN, 150, 60, kv(0, 100)),
    stats("w2", FIXED_NOW - 10_000, 150, 60, kv(10, 100)),
    // w3: reported, but not in the last minute
    stats("w3", FIXED_NOW - 5 * MIN, 0, 0, kv(500, 500)),
    // w4: stats only (role unknown)
    stats("w4", FIXED_NOW - 20_000, 0, 0, kv(90, 900)),
    // w5: reported in the last minute, then went down
    stats("w5", FIXED_NOW - 20_000, 0, 0, kv(1000, 1000)),
    minimal["worker.down"]({ id: "down-w5", worker_id: "w5", ts: FIXED_NOW - 15_000 }),
  ];
}

export function overviewCases(engine: PageEngine) {
  const opened: PageStore[] = [];
  /** A store of the events on this engine, and callers over it at a clock. */
  const open = async (raws: Raw[]): Promise<PageStore["caller"]> => {
    const p = await engine.seeded(raws.map(parsed));
    opened.push(p);
    return p.caller;
  };
  const seed = async (raws: Raw[], now = FIXED_NOW): Promise<Caller> => (await open(raws))(() => now);
  // One database per seeded case on PostgreSQL: dropping them all takes longer than a hook's default 10 s there.
  afterAll(() => Promise.all(opened.map((p) => p.close())), 120_000);

  describe.skipIf(engine.skip)(`${engine.engine}: overview.summary with data`, () => {
    let caller: Caller;
    beforeAll(async () => {
      caller = await seed([...requestEvents(), ...workerEvents()]);
    });

    it("resolves the preset to [now - 15 min, now] and says it is live", async () => {
      expect(await caller.overview.summary({ preset: "15m" })).toMatchObject({
        from: FROM,
        to: FIXED_NOW,
        live: true,
        hasAnyData: true,
      });
    });

    it("requests per second = requests arrived in [from, to) / range seconds", async () => {
      const s = await caller.overview.summary({ preset: "15m" });
      expect(s.requests).toBe(22);
      expect(s.requestsPerSecond).toBeCloseTo(22 / 900, 12);
    });

    it("TTFT p50/p95 by nearest rank over in-range requests with a first token", async () => {
      const s = await caller.overview.summary({ preset: "15m" });
      // 21 TTFTs: 10..200 step 10 plus 100 → sorted ranks ceil(10.5)=11 → 100, ceil(19.95)=20 → 190
      expect(s.ttftP50Ms).toBe(100);
      expect(s.ttftP95Ms).toBe(190);
    });

    it("prefix hit rate is token-weighted across workers, not a mean of worker ratios", async () => {
      const s = await caller.overview.summary({ preset: "15m" });
      const weighted = (90_000 + 10) / (100_000 + 100);
      const meanOfRatios = (0.9 + 0.1) / 2;
      expect(s.prefixQueryTokens).toBe(100_100);
      expect(s.prefixHitRate).toBeCloseTo(weighted, 12);
      expect(Math.abs(s.prefixHitRate! - meanOfRatios)).toBeGreaterThan(0.3);
    });

    it("KV utilization = sum of active / sum of total over each present worker's latest sample in the last minute", async () => {
      const s = await caller.overview.summary({ preset: "15m" });
      expect(s.kvUtilization).toBeCloseTo((600 + 10 + 90) / (1000 + 100 + 900), 12);
    });

    it("counts present workers by role, leaving out stale workers and those that went down", async () => {
      const s = await caller.overview.summary({ preset: "15m" });
      expect(s.workersByRole).toEqual({ decode: 1, prefill: 1, unknown: 1 });
      expect(s.workersPresent).toBe(3);
    });

    it("counts distinct sessions with a request in the last 5 minutes of the range", async () => {
      const s = await caller.overview.summary({ preset: "15m" });
      expect(s.activeSessions).toBe(2);
    });

    it("takes explicit bounds and is not live", async () => {
      const s = await caller.overview.summary({ from: FROM, to: FIXED_NOW });
      const p = await caller.overview.summary({ preset: "15m" });
      expect(s).toEqual({ ...p, live: false });
    });

    it("explicit bounds in the past see only that window", async () => {
      const s = await caller.overview.summary({ from: FROM - 15 * MIN, to: FROM });
      expect(s).toMatchObject({
        from: FROM - 15 * MIN,
        to: FROM,
        live: false,
        requests: 1,
        ttftP50Ms: 1,
        activeSessions: 1,
      });
      // w1's samples in that window: the pre-range delta of 500/500 counts here
      expect(s.prefixHitRate).toBe(1);
      expect(s.workersPresent).toBe(0);
      expect(s.kvUtilization).toBeNull();
    });

    it("a worker's latest sample is its last one up to the range's end, not a later one", async () => {
      // the last minute of [FROM, now - 40 s]: w1's sample at now - 50 s counts, its later ones (600 of 1000) do not
      const s = await caller.overview.summary({ from: FROM, to: FIXED_NOW - 40_000 });
      expect(s.workersByRole).toEqual({ decode: 1 });
      expect(s.kvUtilization).toBe(1);
    });

    it("a worker that went down after the range's end is present in it", async () => {
      // w5 sampled at now - 20 s and went down at now - 15 s: present in a range ending at now - 17 s
      const s = await caller.overview.summary({ from: FROM, to: FIXED_NOW - 17_000 });
      expect(s.workersByRole).toEqual({ decode: 2, unknown: 1 });
      expect(s.kvUtilization).toBeCloseTo((600 + 90 + 1000) / (1000 + 900 + 1000), 12);
    });

    it("of two samples at the same ts, the one with the greater id is the latest", async () => {
      const at = FIXED_NOW - 20_000;
      // Closed here, not in afterAll: every seeded PostgreSQL store holds its pool open, and the suite's stores
      // together already come close to the server's connection limit.
      const p = await engine.seeded(
        [
          minimal["worker.stats"]({ id: "w7-b", ts: at, worker_id: "w7", ...kv(9, 10) }),
          minimal["worker.stats"]({ id: "w7-a", ts: at, worker_id: "w7", ...kv(1, 10) }),
        ].map(parsed),
      );
      try {
        const s = await p.caller(() => FIXED_NOW).overview.summary({ preset: "5m" });
        expect(s.workersPresent).toBe(1);
        expect(s.kvUtilization).toBe(0.9);
      } finally {
        await p.close();
      }
    });

    it("a worker that went down and came back is present again", async () => {
      const c = await seed([
        minimal["worker.up"]({ id: "u1", worker_id: "w9", role: "prefill", ts: FIXED_NOW - 50_000 }),
        minimal["worker.down"]({ id: "d1", worker_id: "w9", ts: FIXED_NOW - 40_000 }),
        minimal["worker.up"]({ id: "u2", worker_id: "w9", role: "prefill", ts: FIXED_NOW - 30_000 }),
        stats("w9", FIXED_NOW - 20_000, 0, 0, kv(5, 10)),
      ]);
      const s = await c.overview.summary({ preset: "5m" });
      expect(s.workersByRole).toEqual({ prefill: 1 });
      expect(s.kvUtilization).toBe(0.5);
    });
  });

  describe.skipIf(engine.skip)(`${engine.engine}: overview.summary presets`, () => {
    let at: PageStore["caller"];
    beforeAll(async () => {
      at = await open(requestEvents());
    });

    it.each(Object.entries(PRESETS) as [Preset, number][])("%s ends now and spans its length", async (preset, span) => {
      const s = await at(() => FIXED_NOW).overview.summary({ preset });
      expect(s).toMatchObject({ from: FIXED_NOW - span, to: FIXED_NOW, live: true });
      expect(s.requestsPerSecond).toBeCloseTo(s.requests / (span / 1000), 12);
      // 5m: the last 5 of the 20 plus the 2 a minute ago; 15m adds the rest; longer ranges add the one just before 15m
      const expected: Record<string, number> = { "5m": 7, "15m": 22 };
      expect(s.requests).toBe(expected[preset] ?? 23);
    });

    it("follows the clock it is given", async () => {
      let now = FIXED_NOW;
      const caller = at(() => now);
      const a = await caller.overview.summary({ preset: "5m" });
      now += 3 * MIN;
      const b = await caller.overview.summary({ preset: "5m" });
      expect(b.to - a.to).toBe(3 * MIN);
    });
  });

  describe.skipIf(engine.skip)(`${engine.engine}: overview.summary without data`, () => {
    it("an empty database: hasAnyData false, KPIs null, counts zero", async () => {
      const s = await (await seed([])).overview.summary({ preset: "1h" });
      expect(s).toEqual({
        from: FIXED_NOW - 3_600_000,
        to: FIXED_NOW,
        live: true,
        hasAnyData: false,
        requests: 0,
        requestsPerSecond: 0,
        ttftP50Ms: null,
        ttftP95Ms: null,
        itlP50Ms: null,
        itlP95Ms: null,
        preemptions: 0,
        prefixHitRate: null,
        prefixQueryTokens: 0,
        kvUtilization: null,
        activeSessions: 0,
        workersByRole: {},
        workersPresent: 0,
        droppedEvents: [],
        attribution: { caughtUp: true, behindMs: 0, oldestPendingAt: null },
      });
    });

    it("ITL p50 is the median of request means, p95 the p95 of request p95s; preemptions add up", async () => {
      const at = FIXED_NOW - 10 * 60_000;
      const c = await seed(
        [10, 20, 30, 40].map((itl, k) =>
          minimal.request({
            id: `i${k}`,
            request_id: `i${k}`,
            ts: at,
            arrived_at: at,
            first_token_at: at + 5,
            itl_ms_mean: itl,
            itl_ms_p95: itl * 3,
            preemptions: k % 2,
          }),
        ),
      );
      const s = await c.overview.summary({ preset: "1h" });
      expect(s).toMatchObject({ itlP50Ms: 20, itlP95Ms: 120, preemptions: 2 });
    });

    it("data only outside the range: hasAnyData true, KPIs still null", async () => {
      const c = await seed(
        [...workerEvents(), minimal.request({ id: "old", ts: T0, arrived_at: T0, first_token_at: T0 + 5 })],
        FIXED_NOW + 24 * 3_600_000,
      );
      const s = await c.overview.summary({ preset: "1h" });
      expect(s).toMatchObject({
        hasAnyData: true,
        requests: 0,
        ttftP50Ms: null,
        ttftP95Ms: null,
        prefixHitRate: null,
        kvUtilization: null,
        workersPresent: 0,
      });
    });

    it("workers with zero capacity give no utilization (null, not 0 or NaN)", async () => {
      const c = await seed([stats("w1", FIXED_NOW - 1_000, 0, 0, kv(0, 0))]);
      const s = await c.overview.summary({ preset: "5m" });
      expect(s.kvUtilization).toBeNull();
      expect(s.workersPresent).toBe(1);
    });

    // "True once anything at all has been ingested" (db/store/overview.ts hasAnyTelemetry)
    it.each<[EventKind]>(
      (
        [
          "worker.up",
          "worker.down",
          "worker.stats",
          "request",
          "kv.stored",
          "kv.removed",
          "kv.cleared",
          "route.decision",
          "tool",
          "reasoning",
          "planner.decision",
          "policy.ack",
        ] as EventKind[]
      ).map((k) => [k]),
    )("after a single %s event, hasAnyData is true", async (kind) => {
      const c = await seed([minimal[kind]()]);
      expect((await c.overview.summary({ preset: "15m" })).hasAnyData).toBe(true);
    });
  });

  describe.skipIf(engine.skip)(`${engine.engine}: overview.summary input validation`, () => {
    let caller: Caller;
    beforeAll(async () => {
      caller = await seed([]);
    });
    const DAY = 24 * 3_600_000;

    it.each<[string, unknown]>([
      ["to equal to from", { from: FROM, to: FROM }],
      ["to before from", { from: FROM, to: FROM - 1 }],
      ["span over 31 days", { from: FIXED_NOW - 31 * DAY - 1, to: FIXED_NOW }],
      ["unknown preset", { preset: "2h" }],
      ["negative from", { from: -1, to: 1000 }],
      ["non-integer bounds", { from: 1.5, to: 1000 }],
      ["bounds as strings", { from: String(FROM), to: String(FIXED_NOW) }],
      ["no range", {}],
      ["only from", { from: FROM }],
    ])("%s → BAD_REQUEST", async (_name, input) => {
      const err = await caller.overview.summary(input as never).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(TRPCError);
      expect((err as TRPCError).code).toBe("BAD_REQUEST");
    });

    it("accepts a span of exactly 31 days", async () => {
      await expect(caller.overview.summary({ from: FIXED_NOW - 31 * DAY, to: FIXED_NOW })).resolves.toMatchObject({
        live: false,
      });
    });
  });
}
