import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageEngine, PageStore } from "../../test/page-stores";
import { minimal, parsed, T0, type Raw } from "../../test/events";

// The planner procedures on seeded decisions, written once and run on each engine (planner.test.ts: SQLite;
// planner.pg.test.ts: PostgreSQL): the same pages, figures and refusals from either.

const MIN = 60_000;
const NOW = T0 + 60 * MIN;
const FROM = NOW - 15 * MIN;
const range = { preset: "15m" } as const;

const pd = (id: string, ts: number, o: Raw) => minimal["planner.decision"]({ id, ts, ...o });
const prefill = { role: "prefill", metric: "prefill_queue" };
const decode = { role: "decode", metric: "decode_kv_utilization" };
const aggregated = { role: "aggregated", metric: "decode_kv_utilization" };

/** Decisions at one instant whose ids order differently byte by byte and by a locale (case, punctuation). */
const TIED_AT = FROM + 8 * MIN;
const TIED_IDS = ["agg-b", "agg_a", "aggC", "AGG-d"];

const seed = () =>
  [
    pd("dec-before", FROM - 5 * MIN, {
      ...decode,
      observed: 0.6,
      scale_up_threshold: 0.9,
      scale_down_threshold: 0.5,
      action: "none",
      replicas_before: 4,
      replicas_after: 4,
      reason: "no change: between",
    }),
    pd("pre-1", FROM + 1 * MIN, {
      ...prefill,
      observed: 0.6,
      scale_up_threshold: 0.5,
      scale_down_threshold: 0.2,
      action: "scale_up",
      replicas_before: 2,
      replicas_after: 3,
      reason: "scale up: prefill queue 0.60 above 0.50",
    }),
    // The operator raised the thresholds: the next decision carries the new ones.
    pd("pre-2", FROM + 2 * MIN, {
      ...prefill,
      observed: 0.4,
      scale_up_threshold: 0.7,
      scale_down_threshold: 0.3,
      action: "none",
      replicas_before: 3,
      replicas_after: 3,
      reason: "no change: prefill queue 0.40 between 0.30 and 0.70",
    }),
    pd("pre-3", FROM + 2 * MIN + 2_000, {
      ...prefill,
      observed: 0.1,
      scale_up_threshold: 0.7,
      scale_down_threshold: 0.3,
      action: "scale_down",
      replicas_before: 3,
      replicas_after: 2,
      reason: "scale down: prefill queue 0.10 below 0.30",
    }),
    pd("dec-1", FROM + 3 * MIN, {
      ...decode,
      observed: 0.95,
      scale_up_threshold: 0.9,
      scale_down_threshold: 0.5,
      action: "scale_up",
      replicas_before: 4,
      replicas_after: 5,
      reason: "scale up: decode KV utilization 0.95 above 0.90",
    }),
    pd("pre-after", NOW, { ...prefill, observed: 9, action: "scale_up", replicas_before: 2, replicas_after: 3 }),
  ].map(parsed);

const tiedSeed = () =>
  TIED_IDS.map((id, i) =>
    parsed(
      pd(id, TIED_AT, {
        ...aggregated,
        observed: 0.25 * (i + 1),
        scale_up_threshold: 0.8,
        scale_down_threshold: 0.1 * (i + 1),
        action: i === 1 ? "scale_up" : "none",
        replicas_before: 1,
        replicas_after: 1 + i,
        reason: `tied ${i}`,
      }),
    ),
  );

export function plannerCases(e: PageEngine): void {
  describe.skipIf(e.skip)(`planner.series and planner.list on seeded decisions on ${e.engine}`, () => {
    let seeded: PageStore;
    let tied: PageStore;
    let caller: ReturnType<PageStore["caller"]>;
    let tiedCaller: ReturnType<PageStore["caller"]>;
    beforeAll(async () => {
      [seeded, tied] = await Promise.all([e.seeded(seed()), e.seeded(tiedSeed())]);
      caller = seeded.caller(() => NOW);
      tiedCaller = tied.caller(() => NOW);
    });
    afterAll(() => Promise.all([seeded?.close(), tied?.close()]));

    it("groups buckets per role with the thresholds each decision carried", async () => {
      const s = await caller.planner.series({ range });
      expect(s.step).toBe(10_000);
      expect(s.roles.map((r) => [r.role, r.metric, r.decisions, r.scaleUps, r.scaleDowns])).toEqual([
        ["prefill", "prefill_queue", 3, 1, 1],
        ["decode", "decode_kv_utilization", 1, 1, 0],
      ]);
      const pre = s.roles[0]!.buckets.map((b) => [b.t - FROM, b.decisions, b.up, b.down, b.replicas]);
      expect(pre).toEqual([
        [1 * MIN, 1, 0.5, 0.2, 3],
        [2 * MIN, 2, 0.7, 0.3, 2],
      ]);
      const shared = s.roles[0]!.buckets[1]!;
      expect(shared.observed).toBeCloseTo(0.25, 12);
      expect(shared.peak).toBeCloseTo(0.4, 12);
    });

    it("knows the replicas and thresholds in force when the range starts", async () => {
      const s = await caller.planner.series({ range });
      expect(s.roles[0]!.start).toBeNull();
      expect(s.roles[1]!.start).toEqual({
        role: "decode",
        model: null,
        ts: FROM - 5 * MIN,
        replicas: 4,
        up: 0.9,
        down: 0.5,
      });
    });

    it("lists decisions newest first with their reasons", async () => {
      const l = await caller.planner.list({ range });
      expect(l.items.map((d) => d.id)).toEqual(["dec-1", "pre-3", "pre-2", "pre-1"]);
      expect(l.items[3]).toMatchObject({
        reason: "scale up: prefill queue 0.60 above 0.50",
        scaleUpThreshold: 0.5,
        scaleDownThreshold: 0.2,
        replicasBefore: 2,
        replicasAfter: 3,
      });
    });

    it("filters by role and to scale actions, and pages with a cursor", async () => {
      expect((await caller.planner.list({ range, role: "prefill", actionsOnly: true })).items.map((d) => d.id)).toEqual(
        ["pre-3", "pre-1"],
      );
      const first = await caller.planner.list({ range, limit: 3 });
      expect(first.nextCursor).toEqual({ ts: FROM + 2 * MIN, id: "pre-2" });
      const second = await caller.planner.list({ range, limit: 3, cursor: first.nextCursor });
      expect(second.items.map((d) => d.id)).toEqual(["pre-1"]);
      expect(second.nextCursor).toBeNull();
    });

    it("orders decisions at one instant by id byte by byte, and pages through them with a cursor", async () => {
      const byteOrder = [...TIED_IDS].sort().reverse();
      const all = await tiedCaller.planner.list({ range, role: "aggregated" });
      expect(all.items.map((d) => d.id)).toEqual(byteOrder);
      const ids: string[] = [];
      let cursor: { ts: number; id: string } | null = null;
      do {
        const page: Awaited<ReturnType<typeof tiedCaller.planner.list>> = await tiedCaller.planner.list({
          range,
          role: "aggregated",
          limit: 1,
          cursor,
        });
        ids.push(...page.items.map((d) => d.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(ids).toEqual(byteOrder);
    });

    it("takes a bucket's thresholds and replicas from its last decision (greatest id at a tied instant)", async () => {
      const s = await tiedCaller.planner.series({ range });
      const agg = s.roles.find((r) => r.role === "aggregated")!;
      expect(agg.buckets).toHaveLength(1);
      const last = [...TIED_IDS].sort().at(-1)!;
      const i = TIED_IDS.indexOf(last);
      expect(agg.buckets[0]).toMatchObject({ decisions: 4, ups: 1, downs: 0, replicas: 1 + i, peak: 1 });
      expect(agg.buckets[0]!.down).toBeCloseTo(0.1 * (i + 1), 12);
      expect(agg.buckets[0]!.observed).toBeCloseTo(0.625, 12);
      expect(s.roles.map((r) => r.role)).toEqual(["aggregated"]);
    });

    it("answers an empty range with no decisions and no buckets", async () => {
      const from = T0 - 10 * 24 * 60 * MIN;
      const l = await caller.planner.list({ range: { from, to: from + MIN } });
      expect(l.items).toEqual([]);
      expect(l.nextCursor).toBeNull();
      expect((await caller.planner.series({ range: { from, to: from + MIN } })).roles).toEqual([]);
    });

    it.each([
      ["a limit of 0", { range, limit: 0 }],
      ["a limit over the page bound", { range, limit: 101 }],
      ["an unknown role", { range, role: "router" }],
      ["a cursor with a negative ts", { range, cursor: { ts: -1, id: "x" } }],
      ["a cursor with an empty id", { range, cursor: { ts: 1, id: "" } }],
      ["a range that ends before it starts", { range: { from: NOW, to: NOW - MIN } }],
    ])("refuses %s", async (_name, input) => {
      await expect(caller.planner.list(input as never)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });
  });
}
