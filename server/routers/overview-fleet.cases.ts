import { afterAll, describe, expect, it } from "vitest";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { minimal, parsed, stats, T0, type Raw } from "../../test/events";

// overview.fleet (the fleet table) and the pages scoped to a cluster or model (overview, workers, routing, planner) on
// seeded data, written once and run on each engine by overview(.pg).test.ts.

const FIXED_NOW = T0 + 3_600_000;
const MIN = 60_000;
const FROM = FIXED_NOW - 15 * MIN;
const kv = (active: number, total: number) => ({ kv_active_blocks: active, kv_total_blocks: total });

export function overviewFleetCases(engine: PageEngine) {
  const opened: PageStore[] = [];
  const seed = async (raws: Raw[]) => {
    const p = await engine.seeded(raws.map(parsed));
    opened.push(p);
    return p.caller(() => FIXED_NOW);
  };
  afterAll(() => Promise.all(opened.map((p) => p.close())), 120_000);

  describe.skipIf(engine.skip)(`${engine.engine}: overview.fleet`, () => {
    // Two clusters: default serves m1 and m2, staging serves m1 on a worker id default also has (two workers).
    const fleetEvents = (): Raw[] => {
      const req = (id: string, cluster: string | null, model: string, at: number, ttft: number, cached: number) =>
        minimal.request({
          id,
          ts: at,
          arrived_at: at,
          first_token_at: at + ttft,
          model,
          input_tokens: 100,
          cached_tokens: cached,
          ...(cluster ? { cluster } : {}),
        });
      return [
        req("d1", null, "m1", FIXED_NOW - 10 * MIN, 10, 90),
        req("d2", null, "m1", FIXED_NOW - 9 * MIN, 30, 90),
        req("d3", null, "m2", FIXED_NOW - 8 * MIN, 500, 10),
        req("s1", "staging", "m1", FIXED_NOW - 7 * MIN, 40, 50),
        req("old", "staging", "m1", FIXED_NOW - 2 * 3_600_000, 40, 50),
        minimal["worker.up"]({ id: "fu1", worker_id: "w1", model: "m1", ts: FROM - 30 * MIN }),
        minimal["worker.up"]({ id: "fu2", worker_id: "w1", model: "m1", ts: FROM - 30 * MIN, cluster: "staging" }),
        stats("w1", FIXED_NOW - 20_000, 0, 0, kv(50, 100)),
        { ...stats("w1", FIXED_NOW - 10_000, 0, 0, kv(90, 100)), cluster: "staging" },
      ];
    };

    it("shows each cluster's models apart over the range's last hour, the same worker id in two clusters as two", async () => {
      const c = await seed(fleetEvents());
      const fleet = await c.overview.fleet({ from: FIXED_NOW - 3 * 3_600_000, to: FIXED_NOW });
      expect(fleet).toMatchObject({ from: FIXED_NOW - 3_600_000, to: FIXED_NOW, clipped: true, ttftsCut: false });
      expect(
        fleet.rows.map((r) => [r.cluster, r.model, r.requests, r.hitRate, r.ttftP50Ms, r.kvUtilization, r.workers]),
      ).toEqual([
        ["default", "m1", 2, 0.9, 10, 0.5, 1],
        ["default", "m2", 1, 0.1, 500, null, 0],
        ["staging", "m1", 1, 0.5, 40, 0.9, 1],
      ]);
    });

    it("reads each row's findings over the same window, a row per cluster and model", async () => {
      const c = await seed(fleetEvents());
      const f = await c.overview.fleetFindings({ from: FIXED_NOW - 3 * 3_600_000, to: FIXED_NOW });
      expect(f).toMatchObject({ from: FIXED_NOW - 3_600_000, to: FIXED_NOW, cut: false });
      // These requests were not attributed and made no tool waits: no finding, and none invented.
      expect(f.rows).toEqual([
        { cluster: "default", model: "m1", unstablePrefix: null, toolWaitSurvivedShare: null },
        { cluster: "default", model: "m2", unstablePrefix: null, toolWaitSurvivedShare: null },
        { cluster: "staging", model: "m1", unstablePrefix: null, toolWaitSurvivedShare: null },
      ]);
      expect((await c.overview.fleetFindings({ from: FROM - 3 * 3_600_000, to: FROM - 2 * 3_600_000 })).rows).toEqual(
        [],
      );
    });

    it("gives the cards and trends of one cluster or one model, from raw rows and from the scope rollups", async () => {
      const c = await seed(fleetEvents());
      type Range = { preset: "15m" } | { from: number; to: number };
      const cards = async (scope: { cluster?: string; model?: string }, range: Range = { preset: "15m" }) => {
        const r = await c.overview.summary({ ...range, ...scope });
        return [r.requests, r.ttftP50Ms, r.workersPresent, r.kvUtilization];
      };
      expect(await cards({})).toEqual([4, 30, 2, 0.7]);
      expect(await cards({ cluster: "staging" })).toEqual([1, 40, 1, 0.9]);
      expect(await cards({ cluster: "default", model: "m1" })).toEqual([2, 10, 1, 0.5]);
      expect(await cards({ model: "m2" })).toEqual([1, 500, 0, null]);
      // Three hours: the minute rollups by cluster and model (staging's old request counts too).
      const hours = { from: FIXED_NOW - 3 * 3_600_000, to: FIXED_NOW };
      expect((await cards({ cluster: "staging" }, hours))[0]).toBe(2);
      expect((await cards({ model: "m1" }, hours))[0]).toBe(4);
      expect((await cards({}, hours))[0]).toBe(5);
      const trend = await c.overview.trends({ preset: "15m", cluster: "staging" });
      const perSecond = trend.points.reduce((n, p) => n + (p.requestsPerSecond ?? 0) * (trend.step / 1000), 0);
      expect(Math.round(perSecond)).toBe(1);
    });

    it("lists and charts the routing decisions of one cluster or model", async () => {
      const at = FIXED_NOW - 5 * MIN;
      const decision = (id: string, cluster?: string) =>
        minimal["route.decision"]({ id, request_id: id, ts: at, ...(cluster ? { cluster } : {}) });
      const c = await seed([
        ...fleetEvents(),
        minimal["worker.up"]({ id: "fu3", worker_id: "w2", model: "m2", ts: FROM - 30 * MIN }),
        decision("rd-d"),
        decision("rd-s", "staging"),
      ]);
      const ids = async (scope: { cluster?: string; model?: string }) =>
        (await c.routing.list({ range: { preset: "15m" }, ...scope })).items.map((d) => d.id);
      expect((await ids({})).sort()).toEqual(["rd-d", "rd-s"]);
      expect(await ids({ cluster: "staging" })).toEqual(["rd-s"]);
      expect(await ids({ cluster: "default" })).toEqual(["rd-d"]);
      // Both chose w1 of their cluster, which serves m1: no decision was won by a worker of m2.
      expect((await ids({ model: "m1" })).sort()).toEqual(["rd-d", "rd-s"]);
      expect(await ids({ model: "m2" })).toEqual([]);
      const series = await c.routing.series({ range: { preset: "15m" }, cluster: "staging" });
      expect([...new Set(series.share.map((r) => r.workerId))]).toEqual(["staging/w1"]);
    });

    it("lists and charts one cluster's planner decisions", async () => {
      const at = FIXED_NOW - 5 * MIN;
      const c = await seed([
        minimal["planner.decision"]({ id: "pd-d", ts: at, replicas_after: 3 }),
        minimal["planner.decision"]({ id: "pd-s", ts: at + 1, replicas_after: 7, cluster: "staging" }),
        minimal["planner.decision"]({ id: "pd-s0", ts: FROM - MIN, replicas_after: 5, cluster: "staging" }),
      ]);
      const listed = async (cluster?: string) =>
        (await c.planner.list({ range: { preset: "15m" }, ...(cluster ? { cluster } : {}) })).items.map((d) => d.id);
      expect(await listed()).toEqual(["pd-s", "pd-d"]);
      expect(await listed("staging")).toEqual(["pd-s"]);
      expect(await listed("default")).toEqual(["pd-d"]);
      const replicas = async (cluster: string) => {
        const r = await c.planner.series({ range: { preset: "15m" }, cluster });
        return r.roles.map((x) => [x.role, x.start?.replicas ?? null, x.buckets.at(-1)?.replicas]);
      };
      // Staging's decision before the range is where its line starts; default had none.
      expect(await replicas("staging")).toEqual([["prefill", 5, 7]]);
      expect(await replicas("default")).toEqual([["prefill", null, 3]]);
    });

    it("keeps the planners of a cluster's two models apart, and shows one model's alone", async () => {
      const at = FIXED_NOW - 5 * MIN;
      const pd = (id: string, model: string, replicas: number, ts = at) =>
        minimal["planner.decision"]({ id, ts, model, replicas_after: replicas, cluster: "production" });
      const c = await seed([pd("a0", "m1", 2, FROM - MIN), pd("a1", "m1", 4), pd("b1", "m2", 9, at + 1)]);
      const series = await c.planner.series({ range: { preset: "15m" }, cluster: "production" });
      expect(series.roles.map((r) => [r.role, r.model, r.start?.replicas ?? null, r.buckets.at(-1)?.replicas])).toEqual(
        [
          ["prefill", "m1", 2, 4],
          ["prefill", "m2", null, 9],
        ],
      );
      const m2 = await c.planner.series({ range: { preset: "15m" }, model: "m2" });
      expect(m2.roles.map((r) => r.model)).toEqual(["m2"]);
      const listed = await c.planner.list({ range: { preset: "15m" }, cluster: "production", model: "m1" });
      expect(listed.items.map((d) => d.id)).toEqual(["a1"]);
    });

    it("offers each cluster's models to the scope menus, and the workers page keeps to a scope", async () => {
      const upAt = FROM - 30 * MIN;
      const c = await seed([
        minimal["worker.up"]({ id: "u1", worker_id: "w1", model: "m1", ts: upAt }),
        minimal["worker.up"]({ id: "u2", worker_id: "w2", model: "m2", ts: upAt }),
        minimal["worker.up"]({ id: "u3", worker_id: "w1", model: "m1", ts: upAt, cluster: "staging" }),
        stats("w1", FIXED_NOW - 20_000, 100, 50, kv(50, 100)),
        stats("w2", FIXED_NOW - 20_000, 100, 10, kv(10, 100)),
        { ...stats("w1", FIXED_NOW - 20_000, 100, 90, kv(90, 100)), id: "staging-stats", cluster: "staging" },
      ]);
      expect((await c.overview.scopes()).clusters).toEqual([
        { name: "default", models: ["m1", "m2"] },
        { name: "staging", models: ["m1"] },
      ]);
      const listed = async (scope: Record<string, string>) =>
        (await c.workers.list({ preset: "15m", ...scope })).workers.map((w) => w.workerId);
      expect(await listed({})).toEqual(["staging/w1", "w1", "w2"]);
      expect(await listed({ cluster: "staging" })).toEqual(["staging/w1"]);
      expect(await listed({ model: "m1" })).toEqual(["staging/w1", "w1"]);
      expect(await listed({ cluster: "default", model: "m2" })).toEqual(["w2"]);
      expect(await listed({ cluster: "staging", model: "m2" })).toEqual([]);
      const series = await c.workers.series({ range: { preset: "15m" }, cluster: "staging" });
      expect(series.workers.map((w) => w.workerId)).toEqual(["staging/w1"]);
      // Every rollup the ranges read (10 s, 30 s: PostgreSQL's packed chunks, 5 min, 15 min): a scope's workers are
      // read alone, each the same columns as in the fleet's read.
      for (const preset of ["15m", "1h", "6h", "24h"] as const)
        for (const scope of [{ cluster: "staging" }, { model: "m1" }, { cluster: "staging", model: "m2" }] as Record<
          string,
          string
        >[]) {
          const all = await c.workers.series({ range: { preset } });
          const mine = await c.workers.series({ range: { preset }, ...scope });
          const ids = await listed(scope);
          expect(mine.workers).toEqual(all.workers.filter((w) => ids.includes(w.workerId)));
        }
      await expect(c.workers.list({ preset: "15m", cluster: "prod eu" })).rejects.toThrow(/cluster/);
    });

    it("is empty without telemetry", async () => {
      const c = await seed([]);
      expect((await c.overview.fleet({ preset: "15m" })).rows).toEqual([]);
    });
  });
}
