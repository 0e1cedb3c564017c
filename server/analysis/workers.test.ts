import { describe, expect, it } from "vitest";
import {
  bucketDeltas,
  columnsOfRows,
  bucketStep,
  candidacyWindow,
  lastHeard,
  lostDecisions,
  routingShare,
  seriesSource,
  workerState,
  type LifecycleEvent,
  type StateInRange,
} from "./workers";

const FROM = 1_000_000;
const TO = FROM + 900_000;
const up = (ts: number): LifecycleEvent => ({ kind: "worker.up", ts });
const down = (ts: number): LifecycleEvent => ({ kind: "worker.down", ts });

describe("workerState", () => {
  it.each<[string, LifecycleEvent[], LifecycleEvent | null, number, number | null, StateInRange]>([
    ["up before, reporting", [], up(FROM - 10), FROM - 10, TO - 1_000, { state: "up", joined: false, left: false }],
    ["joined in range", [up(FROM + 5)], null, FROM + 5, TO - 1_000, { state: "up", joined: true, left: false }],
    ["stats only, first seen in range", [], null, FROM + 100, TO - 1_000, { state: "up", joined: true, left: false }],
    [
      "left in range",
      [down(TO - 5_000)],
      up(FROM - 10),
      FROM - 10,
      TO - 6_000,
      { state: "down", joined: false, left: true },
    ],
    [
      "left then rejoined",
      [down(FROM + 10), up(FROM + 20)],
      up(FROM - 10),
      FROM - 10,
      TO - 500,
      { state: "up", joined: true, left: true },
    ],
    ["down before the range", [], down(FROM - 5), FROM - 100, FROM - 10, { state: "down", joined: false, left: false }],
    [
      "sample after a down means it is back",
      [],
      down(FROM - 5),
      FROM - 100,
      TO - 100,
      { state: "up", joined: false, left: false },
    ],
    [
      "silent for more than a minute",
      [],
      up(FROM - 10),
      FROM - 10,
      TO - 61_000,
      { state: "stale", joined: false, left: false },
    ],
    ["exactly a minute ago is still up", [], null, FROM - 10, TO - 60_000, { state: "up", joined: false, left: false }],
    [
      "up event just now without samples",
      [up(TO - 2_000)],
      null,
      TO - 2_000,
      null,
      { state: "up", joined: true, left: false },
    ],
    ["no samples, no events", [], null, FROM - 10, null, { state: "stale", joined: false, left: false }],
  ])("%s", (_name, inRange, before, firstSeen, lastSampleTs, expected) => {
    expect(workerState({ inRange, before, firstSeen, lastSampleTs, from: FROM, to: TO })).toEqual(expected);
  });

  it("event order does not matter", () => {
    const a = workerState({
      inRange: [up(FROM + 20), down(FROM + 10)],
      before: null,
      firstSeen: FROM - 1,
      lastSampleTs: null,
      from: FROM,
      to: FROM + 30,
    });
    expect(a).toEqual({ state: "up", joined: true, left: true });
  });
});

describe("bucketStep and seriesSource", () => {
  const MIN = 60_000;
  it.each<[string, number, number, "raw" | "rollup"]>([
    ["5m", 5 * MIN, 5_000, "raw"],
    ["15m", 15 * MIN, 10_000, "raw"],
    ["1h", 60 * MIN, 30_000, "raw"],
    ["61m", 61 * MIN, MIN, "rollup"],
    ["6h", 360 * MIN, 5 * MIN, "rollup"],
    ["24h", 1_440 * MIN, 15 * MIN, "rollup"],
    ["7d", 7 * 1_440 * MIN, 2 * 60 * MIN, "rollup"],
    ["31d", 31 * 1_440 * MIN, 12 * 60 * MIN, "rollup"],
    ["10s", 10_000, 1_000, "raw"],
  ])("%s (span %d ms) → step %d ms from %s", (_name, span, step, source) => {
    expect(bucketStep(span)).toBe(step);
    expect(span / step).toBeLessThanOrEqual(120);
    expect(seriesSource(span)).toBe(source);
    if (source === "rollup") expect(step % MIN).toBe(0);
  });
});

describe("routingShare and lastHeard", () => {
  it.each<[number, number, number | null]>([
    [0, 0, null],
    [0, 10, 0],
    [3, 10, 0.3],
    [10, 10, 1],
  ])("routingShare(%d, %d) = %j", (won, total, share) => {
    expect(routingShare(won, total)).toBe(share);
  });

  it.each<[string, number, number | null, number | null, number | null]>([
    ["last seen inside the range", TO - 5, TO - 100, null, TO - 5],
    ["seen after the range: the latest sample in it", TO + 5_000, TO - 100, TO - 300, TO - 100],
    ["seen after the range: a later event", TO + 5_000, TO - 300, TO - 100, TO - 100],
    ["seen after but not during", TO + 5_000, null, null, null],
  ])("%s", (_name, lastSeen, sample, event, expected) => {
    expect(lastHeard(lastSeen, sample, event, TO)).toBe(expected);
  });
});

describe("columnsOfRows", () => {
  const row = (workerId: string, t: number, kvActive: number, kvTotal: number, query: number, hit: number) => ({
    workerId,
    t,
    samples: 1,
    kvActive,
    kvTotal,
    query,
    hit,
  });

  it.each([
    ["an empty range: no workers", [], []],
    [
      "one worker, one bucket",
      [row("w", 10, 1, 4, 3, 1)],
      [{ workerId: "w", t: [10], util: [0.25], hitRate: [1 / 3] }],
    ],
    [
      "gaps stay absent; buckets sorted by time",
      [row("w", 40, 5, 10, 100, 90), row("w", 10, 1, 10, 10, 0)],
      [{ workerId: "w", t: [10, 40], util: [0.1, 0.5], hitRate: [0, 0.9] }],
    ],
    [
      "a worker with only nulls (no capacity, nothing queried) keeps its buckets",
      [row("b", 20, 5, 10, 100, 90), row("a", 20, 0, 0, 0, 0), row("a", 30, 3, 0, 0, 0), row("b", 10, 1, 10, 3, 1)],
      [
        { workerId: "a", t: [20, 30], util: [null, null], hitRate: [null, null] },
        { workerId: "b", t: [10, 20], util: [0.1, 0.5], hitRate: [1 / 3, 0.9] },
      ],
    ],
    [
      "workers in locale order, as the charts list them",
      [row("w10", 0, 1, 2, 0, 0), row("W2", 0, 1, 2, 0, 0), row("w1", 0, 1, 2, 0, 0)],
      ["w1", "w10", "W2"].map((workerId) => ({ workerId, t: [0], util: [0.5], hitRate: [null] })),
    ],
  ])("%s", (_name, rows, expected) => {
    expect(columnsOfRows(rows)).toEqual(expected);
  });
});

describe("lostDecisions", () => {
  const c = (worker_id: string, overlap_blocks: number, cost: number) => ({
    worker_id,
    overlap_blocks,
    prefill_blocks: 1,
    decode_blocks: 1,
    cost,
  });
  const d = (ts: number, chosen: string, cands: ReturnType<typeof c>[]) => ({
    ts,
    requestId: `r${ts}`,
    chosenWorkerId: chosen,
    candidates: JSON.stringify(cands),
  });

  it.each<[string, ReturnType<typeof d>[], number[]]>([
    ["won: not lost", [d(1, "w1", [c("w1", 5, 10), c("w2", 1, 12)])], []],
    ["not a candidate: not lost", [d(2, "w2", [c("w2", 5, 10)])], []],
    ["a candidate, another chosen: lost", [d(3, "w2", [c("w1", 8, 11), c("w2", 5, 10)])], [3]],
    [
      "a worker whose id is a prefix of another's is not confused with it",
      [d(4, "w2", [c("w10", 8, 11), c("w2", 5, 10)])],
      [],
    ],
  ])("%s", (_name, rows, lostTs) => {
    expect(lostDecisions(rows, "w1").map((l) => l.ts)).toEqual(lostTs);
  });

  it("reports both sides' overlap and cost; a winner missing from the candidates gives nulls", () => {
    expect(lostDecisions([d(5, "w2", [c("w1", 8, 11), c("w2", 5, 10)]), d(6, "w9", [c("w1", 2, 3)])], "w1")).toEqual([
      { ts: 5, requestId: "r5", winnerId: "w2", overlap: 8, cost: 11, winnerOverlap: 5, winnerCost: 10 },
      { ts: 6, requestId: "r6", winnerId: "w9", overlap: 2, cost: 3, winnerOverlap: null, winnerCost: null },
    ]);
  });
});

describe("bucketDeltas", () => {
  const b = (workerId: string, t: number, lastQuery: string, lastHit: string) => ({
    workerId,
    t,
    samples: 2,
    kvActive: 1,
    kvTotal: 2,
    lastTs: t + 9,
    lastQuery,
    lastHit,
  });
  const base = (ts: number, query: string, hit: string) => ({ ts, query, hit });

  it.each<[string, ReturnType<typeof b>[], [string, ReturnType<typeof base>][], [number, number][]]>([
    [
      "first bucket from the baseline, then bucket to bucket",
      [b("w", 10, "150", "100"), b("w", 20, "250", "180")],
      [["w", base(5, "100", "90")]],
      [
        [50, 10],
        [100, 80],
      ],
    ],
    [
      "no baseline: the first bucket has no delta",
      [b("w", 10, "150", "100"), b("w", 20, "250", "180")],
      [],
      [
        [0, 0],
        [100, 80],
      ],
    ],
    [
      "a counter drop is a restart: what it counted since",
      [b("w", 10, "900", "800"), b("w", 20, "40", "30")],
      [],
      [
        [0, 0],
        [40, 30],
      ],
    ],
    [
      "hits never exceed queries",
      [b("w", 10, "100", "0"), b("w", 20, "110", "50")],
      [],
      [
        [0, 0],
        [10, 10],
      ],
    ],
    [
      "workers do not share counters",
      [b("a", 10, "100", "50"), b("b", 10, "500", "400"), b("b", 20, "600", "450")],
      [["a", base(1, "0", "0")]],
      [
        [100, 50],
        [0, 0],
        [100, 50],
      ],
    ],
    [
      "64-bit counters beyond 2^53 keep exact deltas",
      [b("w", 10, "18014398509481984", "9007199254740993")],
      [["w", base(1, "18014398509481000", "9007199254740000")]],
      [[984, 984]],
    ],
  ])("%s", (_name, rows, baselines, expected) => {
    expect(bucketDeltas(rows, new Map(baselines)).map((r) => [r.query, r.hit])).toEqual(expected);
  });
});

describe("candidacyWindow", () => {
  it.each<[string, { firstSeen: number; lastSeen: number }, { from: number; to: number }]>([
    ["around for the whole range", { firstSeen: FROM - 5, lastSeen: TO + 5 }, { from: FROM, to: TO }],
    ["joined in the range", { firstSeen: FROM + 100, lastSeen: TO + 5 }, { from: FROM + 100, to: TO }],
    [
      "left in the range: up to a minute after its last report",
      { firstSeen: FROM - 5, lastSeen: FROM + 1_000 },
      { from: FROM, to: FROM + 61_000 },
    ],
    ["gone before the range: empty", { firstSeen: FROM - 500_000, lastSeen: FROM - 200_000 }, { from: FROM, to: FROM }],
    ["first seen after the range: empty", { firstSeen: TO + 10, lastSeen: TO + 20 }, { from: TO + 10, to: TO + 10 }],
  ])("%s", (_name, w, expected) => {
    expect(candidacyWindow(w, FROM, TO)).toEqual(expected);
  });
});
