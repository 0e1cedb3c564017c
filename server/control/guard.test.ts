import { describe, expect, it } from "vitest";
import type { WindowRows } from "../analysis/impact";
import type { GuardSpec } from "../../lib/policies/guard-input";
import { decideGuard, guardWindows, MIN_GUARD_REQUESTS } from "./guard";

const MIN = 60_000;
const APPLIED = 1_764_417_600_000;

/** A window of n requests, each with the same TTFT (ms) and the given share of cached prompt tokens. */
function win(n: number, ttft: number, hit: number): WindowRows {
  return {
    requests: n,
    inputTokens: n * 1000,
    cachedTokens: Math.round(n * 1000 * hit),
    ttftsSorted: Array.from({ length: n }, () => ttft),
    causes: { cold: 0, diverged: 0, evicted: 0, routedAway: 0, unknown: 0 },
    evictions: [],
  };
}

const spec = (o: Partial<GuardSpec> = {}): GuardSpec => ({
  ttftP95RisePct: 20,
  hitRateDropPoints: 5,
  windowMinutes: 10,
  ...o,
});
const N = MIN_GUARD_REQUESTS;

describe("guard decision", () => {
  it.each<[string, GuardSpec, WindowRows, WindowRows, number, string, string | null, RegExp]>([
    [
      "TTFT p95 rose 34%",
      spec(),
      win(N, 100, 0.8),
      win(N, 134, 0.8),
      3,
      "tripped",
      "TTFT p95 +34%",
      /after 3 of 10 min/,
    ],
    [
      "hit rate fell 7 points",
      spec(),
      win(N, 100, 0.8),
      win(N, 100, 0.73),
      2,
      "tripped",
      "hit rate −7.0 points",
      /tripped/,
    ],
    [
      "both breached",
      spec(),
      win(N, 100, 0.8),
      win(N, 200, 0.5),
      1,
      "tripped",
      "TTFT p95 +100%, hit rate −30.0 points",
      /./,
    ],
    [
      "rise within the limit",
      spec(),
      win(N, 100, 0.8),
      win(N, 119, 0.78),
      4,
      "watching",
      null,
      /4 of 10 min measured: TTFT p95 \+19%/,
    ],
    [
      "exactly at the limit does not trip",
      spec({ hitRateDropPoints: null }),
      win(N, 100, 0.8),
      win(N, 120, 0.8),
      4,
      "watching",
      null,
      /\+20%/,
    ],
    [
      "only the hit-rate check set: TTFT ignored",
      spec({ ttftP95RisePct: null }),
      win(N, 100, 0.8),
      win(N, 900, 0.8),
      4,
      "watching",
      null,
      /hit rate \+0.0 points/,
    ],
    ["improvement never trips", spec(), win(N, 100, 0.5), win(N, 50, 0.9), 10, "passed", null, /passed after 10 min/],
    [
      "window over without breach",
      spec(),
      win(N, 100, 0.8),
      win(N, 110, 0.79),
      12,
      "passed",
      null,
      /TTFT p95 \+10% \(limit \+20%\)/,
    ],
    [
      "too little traffic after: says so, no trip",
      spec(),
      win(N, 100, 0.8),
      win(N - 1, 900, 0),
      5,
      "watching",
      null,
      /too little traffic to judge \(30 requests before, 29 after/,
    ],
    ["too little traffic before", spec(), win(3, 100, 0.8), win(N, 900, 0), 5, "watching", null, /too little traffic/],
    [
      "too little traffic at the end: inconclusive",
      spec(),
      win(5, 100, 0.8),
      win(5, 900, 0),
      10,
      "inconclusive",
      null,
      /did not trip/,
    ],
    ["no traffic at all", spec(), win(0, 0, 0), win(0, 0, 0), 10, "inconclusive", null, /0 requests before, 0 after/],
    // The before-window held two minutes of traffic (a fresh start): a worse after-window is not judged against it.
    [
      "before under a quarter of after",
      spec(),
      win(4 * N - 1, 100, 0.8),
      win(16 * N, 900, 0.2),
      10,
      "inconclusive",
      null,
      /one side under a quarter of the other's/,
    ],
  ])("%s", (_name, s, before, after, minutesIn, state, reason, message) => {
    const d = decideGuard(s, APPLIED, before, after, APPLIED + minutesIn * MIN);
    expect(d.state).toBe(state);
    expect(d.reason).toBe(reason);
    expect(d.message).toMatch(message);
  });

  it("waits while no target applied the version", () => {
    expect(decideGuard(spec(), null, null, null, APPLIED)).toMatchObject({ state: "waiting", reason: null });
  });

  it("compares equal windows: the before-window grows with the measured part of the after-window", () => {
    expect(guardWindows(spec(), APPLIED, APPLIED + 3 * MIN)).toMatchObject({
      measuredMs: 3 * MIN,
      before: { from: APPLIED - 3 * MIN, to: APPLIED },
      after: { from: APPLIED, to: APPLIED + 3 * MIN },
      cut: "filling",
    });
    expect(guardWindows(spec(), APPLIED, APPLIED + 60 * MIN)).toMatchObject({
      measuredMs: 10 * MIN,
      before: { from: APPLIED - 10 * MIN },
      cut: "complete",
    });
  });
});
