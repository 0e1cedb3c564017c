import { describe, expect, it } from "vitest";
import { bucketStarts, describeBuckets, fillBuckets, fillColumn, formatTick, toPercent } from "./buckets";

const T0 = 1_764_417_600_000; // 2025-11-29T12:00:00Z

describe("bucketStarts", () => {
  it.each<[string, number, number, number, number[]]>([
    ["aligned range", T0, T0 + 30_000, 10_000, [T0, T0 + 10_000, T0 + 20_000]],
    [
      "unaligned start begins at the bucket holding it",
      T0 + 5_000,
      T0 + 25_000,
      10_000,
      [T0, T0 + 10_000, T0 + 20_000],
    ],
    ["end is exclusive", T0, T0 + 20_001, 10_000, [T0, T0 + 10_000, T0 + 20_000]],
    ["empty range", T0, T0, 10_000, []],
    ["reversed range", T0 + 10, T0, 10_000, []],
    ["zero step", T0, T0 + 10, 0, []],
  ])("%s", (_name, from, to, step, expected) => {
    expect(bucketStarts(from, to, step)).toEqual(expected);
  });

  it("a 24 h preset at 15 min steps has at most 97 buckets", () => {
    const to = T0 + 7 * 60_000;
    expect(bucketStarts(to - 86_400_000, to, 900_000).length).toBe(97);
  });
});

describe("fillColumn: the values of a column pair per bucket start, gaps as null", () => {
  const starts = [0, 10, 20, 30];
  it.each<[string, number[], (number | null)[], (number | null)[]]>([
    ["no buckets", [], [], [null, null, null, null]],
    ["one in the middle", [10], [0.5], [null, 0.5, null, null]],
    ["a zero stays zero, a null stays null", [0, 20, 30], [0, null, 1], [0, null, null, 1]],
    ["any order; a time off the starts is dropped", [30, 5, 0], [1, 0.7, 0.2], [0.2, null, null, 1]],
    ["only nulls", [0, 10, 20, 30], [null, null, null, null], [null, null, null, null]],
  ])("%s", (_name, t, values, expected) => {
    expect(fillColumn(starts, t, values)).toEqual(expected);
  });
});

describe("fillBuckets: a bucket without a point is a gap (null), not 0", () => {
  const starts = [0, 10, 20, 30];
  it.each<[string, { t: number; v: number | null }[], (number | null)[]]>([
    ["no points", [], [null, null, null, null]],
    ["a point in the middle", [{ t: 10, v: 0.5 }], [null, 0.5, null, null]],
    ["a zero stays zero", [{ t: 0, v: 0 }], [0, null, null, null]],
    [
      "a null value stays null",
      [
        { t: 20, v: null },
        { t: 30, v: 1 },
      ],
      [null, null, null, 1],
    ],
    [
      "points outside the starts are ignored",
      [
        { t: 15, v: 9 },
        { t: 40, v: 9 },
      ],
      [null, null, null, null],
    ],
  ])("%s", (_name, points, expected) => {
    expect(fillBuckets(starts, points, (p) => p.v)).toEqual(expected);
  });
});

describe("toPercent", () => {
  it.each<[number | null, number | null]>([
    [null, null],
    [0, 0],
    [0.8002, 80],
    [0.80049, 80],
    [0.8006, 80.1],
    [1, 100],
  ])("toPercent(%j) = %j", (v, out) => {
    expect(toPercent(v)).toBe(out);
  });
});

describe("formatTick", () => {
  it.each<[number, number, string]>([
    [T0 + 5_000, 5_000, "12:00:05"],
    [T0 + 30 * 60_000, 30_000, "12:30:00"],
    [T0 + 90 * 60_000, 60_000, "13:30"],
    [T0 + 15 * 60_000, 900_000, "12:15"],
    [T0 + 12 * 3_600_000, 7_200_000, "11-30 00:00"],
  ])("formatTick(%d, %d) = %s", (t, step, out) => {
    expect(formatTick(t, step, "UTC")).toBe(out);
  });
});

describe("describeBuckets", () => {
  it.each<[number, Parameters<typeof describeBuckets>[1], string]>([
    [5_000, "raw", "5 s buckets from raw samples"],
    [30_000, "raw", "30 s buckets from raw samples"],
    [30_000, "30s", "30 s buckets from 30-second rollups"],
    [10_000, "10s", "10 s buckets from 10-second rollups"],
    [300_000, "5m", "5 min buckets from 5-minute rollups"],
    [120_000, "1m", "2 min buckets from per-minute rollups"],
    [900_000, "15m", "15 min buckets from 15-minute rollups"],
    [900_000, "rollup", "15 min buckets from per-minute rollups"],
    [7_200_000, "rollup", "2 h buckets from per-minute rollups"],
  ])("describeBuckets(%d, %s) = %s", (step, source, out) => {
    expect(describeBuckets(step, source)).toBe(out);
  });
});
