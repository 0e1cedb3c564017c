import { describe, expect, it } from "vitest";
import {
  ackTimes,
  impactWindows,
  targetImpact,
  thinSides,
  windowMetrics,
  type AckRow,
  type WindowRows,
} from "./impact";

const MIN = 60_000;
const T = 1_764_417_600_000;
const NONE = { cold: 0, diverged: 0, evicted: 0, routedAway: 0, unknown: 0 };
const rows = (o: Partial<WindowRows> = {}): WindowRows => ({
  requests: 0,
  inputTokens: 0,
  cachedTokens: 0,
  ttftsSorted: [],
  causes: NONE,
  evictions: [],
  ...o,
});

describe("impact windows", () => {
  it.each<[string, number, number | null, number | null, { measured: number; length: number; cut: string }]>([
    [
      "default: time since the ack when under an hour",
      12 * MIN,
      null,
      null,
      { measured: 12 * MIN, length: 12 * MIN, cut: "complete" },
    ],
    ["default capped at one hour", 5 * 60 * MIN, null, null, { measured: 60 * MIN, length: 60 * MIN, cut: "complete" }],
    [
      "default at least a minute (just applied: filling)",
      10_000,
      null,
      null,
      { measured: 10_000, length: MIN, cut: "filling" },
    ],
    ["chosen 60 min, 12 measured", 12 * MIN, 60 * MIN, null, { measured: 12 * MIN, length: 60 * MIN, cut: "filling" }],
    ["chosen 30 min, complete", 45 * MIN, 30 * MIN, null, { measured: 30 * MIN, length: 30 * MIN, cut: "complete" }],
    [
      "cut where the next version took effect",
      45 * MIN,
      30 * MIN,
      20 * MIN,
      { measured: 20 * MIN, length: 30 * MIN, cut: "superseded" },
    ],
    [
      "next version after the window does not cut",
      45 * MIN,
      30 * MIN,
      40 * MIN,
      { measured: 30 * MIN, length: 30 * MIN, cut: "complete" },
    ],
    [
      "now before the ack (clock skew): nothing measured",
      -MIN,
      5 * MIN,
      null,
      { measured: 0, length: 5 * MIN, cut: "filling" },
    ],
  ])("%s", (_name, since, length, next, want) => {
    const w = impactWindows(T, T + since, length, next === null ? null : T + next);
    expect({ measured: w.measuredMs, length: w.lengthMs, cut: w.cut }).toEqual(want);
    expect(w.after).toEqual({ from: T, to: T + w.measuredMs });
    expect(w.before).toEqual({ from: T - w.measuredMs, to: T });
  });
});

describe("window metrics", () => {
  it("weights the hit rate by tokens, takes nearest-rank TTFT percentiles and sums causes and evictions", () => {
    const m = windowMetrics(
      rows({
        requests: 20,
        inputTokens: 10_000,
        cachedTokens: 5_800,
        ttftsSorted: Array.from({ length: 20 }, (_, i) => (i + 1) * 10),
        causes: { cold: 100, diverged: 200, evicted: 300, routedAway: 400, unknown: 5 },
        evictions: [
          { reason: "ttl", blocks: 4 },
          { reason: "capacity", blocks: 40 },
          { reason: "agent_end", blocks: 0 },
        ],
      }),
    );
    expect(m).toEqual({
      requests: 20,
      inputTokens: 10_000,
      // No window length given: no rate per minute.
      rates: { requestsPerMinute: null, recomputedPer1kPrompt: 100.5, evictedBlocksPerRequest: 2.2 },
      hitRate: 0.58,
      ttftP50Ms: 100,
      ttftP95Ms: 190,
      recomputed: { cold: 100, diverged: 200, evicted: 300, routedAway: 400, unknown: 5, total: 1005 },
      evictions: [
        { reason: "capacity", blocks: 40 },
        { reason: "ttl", blocks: 4 },
      ],
      evictedBlocks: 44,
    });
  });

  it("is a gap, not zero, without traffic", () => {
    expect(windowMetrics(rows())).toMatchObject({ requests: 0, hitRate: null, ttftP50Ms: null, ttftP95Ms: null });
  });
});

describe("target impact", () => {
  const w = impactWindows(T, T + 20 * MIN, null);
  it.each<[string, number | null, boolean]>([
    ["attribution caught up", null, true],
    ["attribution past the window", T + 25 * MIN, true],
    ["attribution behind inside the after-window", T + 5 * MIN, false],
  ])("%s", (_name, pending, complete) => {
    expect(targetImpact("sim", T, w, rows({ requests: 1 }), rows(), pending)).toMatchObject({
      causesComplete: complete,
    });
  });
  it("says when neither window saw traffic", () => {
    expect(targetImpact("sim", T, w, rows(), rows(), null)).toMatchObject({ noTraffic: true, state: "measured" });
    expect(targetImpact("sim", T, w, rows(), rows({ requests: 3 }), null)).toMatchObject({ noTraffic: false });
  });
});

describe("ack times", () => {
  const ack = (
    target: string,
    version: number,
    ts: number,
    status = "applied",
    message: string | null = null,
  ): AckRow => ({
    target,
    version,
    ts,
    status,
    message,
  });
  it("takes each target's first applied ack and the next version's, and reports refusals", () => {
    const acks = [
      ack("sim", 7, T + 5_000),
      ack("sim", 7, T + 2_000),
      ack("sim", 8, T + 60_000),
      ack("b-cluster", 7, T + 3_000, "rejected", "unknown field"),
      ack("c-cluster", 8, T + 9_000),
      ack("d-cluster", 7, T + 1_000),
      ack("d-cluster", 9, T + 500),
    ];
    expect(ackTimes(acks, 7)).toEqual([
      { target: "b-cluster", state: "rejected", at: T + 3_000, message: "unknown field" },
      { target: "d-cluster", state: "applied", appliedAt: T + 1_000, nextAppliedAt: null },
      { target: "sim", state: "applied", appliedAt: T + 2_000, nextAppliedAt: T + 60_000 },
    ]);
  });
  it("is empty before any target answered", () => expect(ackTimes([ack("sim", 6, T)], 7)).toEqual([]));
});

describe("comparing windows of unequal traffic", () => {
  it.each<[string, number, number, { before: string | null; after: string | null }]>([
    ["even", 500, 600, { before: null, after: null }],
    ["a quarter exactly is enough", 150, 600, { before: null, after: null }],
    // The report that asked for this: the dashboard had run two minutes of a 25-minute before-window.
    [
      "before under a quarter of after",
      476,
      6_436,
      { before: "476 requests, under a quarter of the other side's 6436: its window held little traffic", after: null },
    ],
    ["after too few", 400, 12, { before: null, after: "12 requests, fewer than 30" }],
    ["both too few", 3, 0, { before: "3 requests, fewer than 30", after: "0 requests, fewer than 30" }],
  ])("%s", (_name, before, after, want) => expect(thinSides(before, after)).toEqual(want));

  it("gives recomputed tokens per 1,000 prompt tokens, evictions per request and requests per minute", () => {
    const rows = {
      requests: 476,
      inputTokens: 2_000_000,
      cachedTokens: 1_000_000,
      ttftsSorted: [],
      causes: { cold: 9_800_000 / 2, diverged: 0, evicted: 9_800_000 / 2, routedAway: 0, unknown: 0 },
      evictions: [{ reason: "capacity", blocks: 69_000 }],
    };
    const m = windowMetrics(rows, 25 * 60_000);
    expect(m.rates.recomputedPer1kPrompt).toBeCloseTo(4_900);
    expect(m.rates.evictedBlocksPerRequest).toBeCloseTo(69_000 / 476);
    expect(m.rates.requestsPerMinute).toBeCloseTo(476 / 25);
    const empty = windowMetrics({ ...rows, requests: 0, inputTokens: 0, evictions: [] });
    expect(empty.rates).toEqual({
      requestsPerMinute: null,
      recomputedPer1kPrompt: null,
      evictedBlocksPerRequest: null,
    });
  });
});
