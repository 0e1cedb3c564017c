import { beforeAll, describe, expect, it } from "vitest";
import { storeEvents } from "../../db/queries/ingest";
import { testCaller, testDb } from "../../test/db";
import { minimal, parsed, T0, type Raw } from "../../test/events";

const MIN = 60_000;
const NOW = T0 + 60 * MIN;
const FROM = NOW - 15 * MIN;
const range = { preset: "15m" } as const;

const pd = (id: string, ts: number, o: Raw) => minimal["planner.decision"]({ id, ts, ...o });
const prefill = { role: "prefill", metric: "prefill_queue" };
const decode = { role: "decode", metric: "decode_kv_utilization" };

describe("planner.series and planner.list on seeded decisions", () => {
  const db = testDb();
  const caller = testCaller(db, () => NOW);
  beforeAll(() => {
    storeEvents(
      db,
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
      ].map(parsed),
    );
  });

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
    expect(s.roles[1]!.start).toEqual({ role: "decode", ts: FROM - 5 * MIN, replicas: 4, up: 0.9, down: 0.5 });
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
    expect((await caller.planner.list({ range, role: "prefill", actionsOnly: true })).items.map((d) => d.id)).toEqual([
      "pre-3",
      "pre-1",
    ]);
    const first = await caller.planner.list({ range, limit: 3 });
    expect(first.nextCursor).toEqual({ ts: FROM + 2 * MIN, id: "pre-2" });
    const second = await caller.planner.list({ range, limit: 3, cursor: first.nextCursor });
    expect(second.items.map((d) => d.id)).toEqual(["pre-1"]);
    expect(second.nextCursor).toBeNull();
  });
});
