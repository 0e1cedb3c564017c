import { describe, expect, it } from "vitest";
import { bucketStep } from "./workers";
import { needsCoverage, spanRollup, statsResolution, useRollups, type StatsResolution } from "./resolution";

const MIN = 60_000;
const H = 60 * MIN;
const NOW = 1_764_421_200_000;

describe("statsResolution", () => {
  // [name, span, step (null: bucketStep(span)), oldest 10 s bucket, oldest raw sample, expected]
  it.each<[string, number, number | null, number | null, number | null, StatsResolution]>([
    ["5m preset: 5 s buckets are finer than the 10 s rollup", 5 * MIN, null, NOW - 48 * H, NOW - 48 * H, "raw"],
    ["15m preset: 10 s buckets", 15 * MIN, null, NOW - 48 * H, NOW - 48 * H, "10s"],
    ["1h preset: 30 s buckets from the 30 s rollup", H, null, NOW - 48 * H, NOW - 48 * H, "30s"],
    ["1h with a 20 s step", H, 20_000, NOW - 48 * H, NOW - 48 * H, "10s"],
    ["1h with a 1 min step", H, MIN, NOW - 48 * H, NOW - 48 * H, "30s"],
    ["1h with a 15 s step (not whole 10 s rows)", H, 15_000, NOW - 48 * H, NOW - 48 * H, "raw"],
    ["1h, no 10 s rows at all", H, null, null, NOW - 48 * H, "raw"],
    ["1h, nothing stored", H, null, null, null, "raw"],
    [
      "1h, 10 s rows start after the range start but raw starts later still",
      H,
      null,
      NOW - 30 * MIN,
      NOW - 20 * MIN,
      "30s",
    ],
    [
      "1h, 10 s rows start in the same 10 s bucket as raw",
      H,
      null,
      NOW - 30 * MIN - 10_000,
      NOW - 30 * MIN - 3_000,
      "30s",
    ],
    [
      "1h, raw reaches further back than the 10 s rows (upgraded database)",
      H,
      null,
      NOW - 30 * MIN,
      NOW - 48 * H,
      "raw",
    ],
    ["1h, 10 s rows start inside the range, raw before it", H, null, NOW - 59 * MIN, NOW - 2 * H, "raw"],
    ["1h, raw starts 5 s into the oldest 10 s bucket", H, null, NOW - 24 * H, NOW - 24 * H + 5_000, "30s"],
    ["61m: minute buckets from the 1 m rollup", 61 * MIN, null, NOW - 48 * H, NOW - 48 * H, "1m"],
    ["6h preset: 5 min buckets", 6 * H, null, NOW - 48 * H, NOW - 48 * H, "5m"],
    ["6h + 1 min: still 5 min buckets", 6 * H + MIN, null, null, null, "5m"],
    ["2h: 1 min buckets", 2 * H, null, null, null, "1m"],
    ["3h: 2 min buckets", 3 * H, null, null, null, "1m"],
    ["12h: 10 min buckets are two 5 min rows", 12 * H, null, null, null, "5m"],
    ["24h preset: 15 min buckets", 24 * H, null, NOW - 48 * H, NOW - 48 * H, "15m"],
    ["7d preset: 2 h buckets", 7 * 24 * H, null, NOW - 48 * H, NOW - 48 * H, "15m"],
    ["6h with 15 min buckets", 6 * H, 15 * MIN, null, null, "15m"],
    ["2h with a 30 s step (no rollup divides it)", 2 * H, 30_000, NOW - 48 * H, NOW - 48 * H, "raw"],
  ])("%s", (_name, span, step, oldest10s, oldestRaw, expected) => {
    expect(statsResolution({ from: NOW - span, to: NOW, step: step ?? bucketStep(span), oldest10s, oldestRaw })).toBe(
      expected,
    );
  });
});

describe("useRollups", () => {
  it.each([
    ["30 min", 30 * MIN, MIN, false],
    ["exactly an hour", H, MIN, false],
    ["an hour and a minute", H + MIN, MIN, true],
    ["6 h, 5-minute buckets", 6 * H, 5 * MIN, true],
    ["6 h, 30-second buckets", 6 * H, 30_000, false],
    ["empty range", 0, MIN, false],
    ["reversed range", -6 * H, MIN, false],
  ])("%s", (_, span, step, expected) => expect(useRollups(NOW, NOW + span, step)).toBe(expected));
});

describe("spanRollup", () => {
  const HOUR = 3_600_000;
  it.each([
    ["1 h, 1-minute buckets", HOUR, 60_000, "1m"],
    ["6 h, 15-minute buckets", 6 * HOUR, 900_000, "1m"],
    ["24 h, 15-minute buckets", 24 * HOUR, 900_000, "15m"],
    ["24 h, 10-minute buckets", 24 * HOUR, 600_000, "1m"],
    ["7 d, 2-hour buckets", 168 * HOUR, 7_200_000, "15m"],
  ] as const)("%s read the %s rollup", (_, span, step, rollup) => expect(spanRollup(span, step)).toBe(rollup));
});

describe("needsCoverage", () => {
  const HOUR = 3_600_000;
  it.each([
    [HOUR, true],
    [HOUR + 1, false],
    [24 * HOUR, false],
  ])("a span of %i ms: %s", (span, needed) => expect(needsCoverage(0, span)).toBe(needed));

  it("beyond it, statsResolution gives the same answer whatever is stored", () => {
    for (const span of [HOUR + 60_000, 6 * HOUR, 24 * HOUR])
      for (const step of [60_000, 300_000, 900_000]) {
        const none = statsResolution({ from: 0, to: span, step, oldest10s: null, oldestRaw: null });
        expect(statsResolution({ from: 0, to: span, step, oldest10s: span, oldestRaw: 0 })).toBe(none);
        expect(statsResolution({ from: 0, to: span, step, oldest10s: 0, oldestRaw: span })).toBe(none);
      }
  });
});
