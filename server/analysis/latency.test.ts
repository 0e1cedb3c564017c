import { describe, expect, it } from "vitest";
import { bucketValue, latencyBucket } from "../../lib/latency-buckets";
import {
  histogramP50P95,
  histogramQuantilePerBucket,
  histogramsByBucket,
  sortedP50P95,
  sortedQuantilePerBucket,
} from "./latency";

const b = (ms: number) => latencyBucket(ms);

describe("sortedP50P95", () => {
  it.each<[string, number[], number | null, number | null]>([
    ["no values", [], null, null],
    ["one value", [7], 7, 7],
    ["1 … 100 by nearest rank", Array.from({ length: 100 }, (_, i) => i + 1), 50, 95],
    ["an even count takes the lower middle", [1, 2, 3, 4], 2, 4],
  ])("%s", (_, sorted, p50, p95) => expect(sortedP50P95(sorted)).toEqual({ p50, p95 }));
});

describe("histogramP50P95", () => {
  it.each<[string, { bucket: number; n: number }[], number | null, number | null]>([
    ["empty", [], null, null],
    ["only zero counts", [{ bucket: b(100), n: 0 }], null, null],
    ["one bucket", [{ bucket: b(100), n: 5 }], bucketValue(b(100)), bucketValue(b(100))],
    [
      "repeated buckets are summed",
      [
        { bucket: b(10), n: 60 },
        { bucket: b(500), n: 30 },
        { bucket: b(10), n: 5 },
        { bucket: b(500), n: 5 },
      ],
      bucketValue(b(10)),
      bucketValue(b(500)),
    ],
  ])("%s", (_, entries, p50, p95) => expect(histogramP50P95(entries)).toEqual({ p50, p95 }));
});

describe("per-bucket quantiles", () => {
  it("group histogram entries by start in no order, and report starts ascending", () => {
    const entries = [
      { t: 120, bucket: b(50), n: 1 },
      { t: 0, bucket: b(10), n: 3 },
      { t: 120, bucket: b(50), n: 2 },
    ];
    expect([...histogramsByBucket(entries).keys()]).toEqual([120, 0]);
    expect(histogramQuantilePerBucket(entries, 0.5)).toEqual([
      { t: 0, value: bucketValue(b(10)) },
      { t: 120, value: bucketValue(b(50)) },
    ]);
    expect(histogramQuantilePerBucket([], 0.95)).toEqual([]);
  });

  it.each<[string, { t: number; v: number }[], number, { t: number; value: number | null }[]]>([
    ["no rows", [], 0.95, []],
    ["one row", [{ t: 0, v: 4 }], 0.95, [{ t: 0, value: 4 }]],
    [
      "runs of one start, each its own quantile",
      [
        { t: 0, v: 1 },
        { t: 0, v: 2 },
        { t: 0, v: 3 },
        { t: 60, v: 10 },
        { t: 60, v: 20 },
      ],
      0.5,
      [
        { t: 0, value: 2 },
        { t: 60, value: 10 },
      ],
    ],
  ])("sorted rows: %s", (_, rows, q, expected) => expect(sortedQuantilePerBucket(rows, q)).toEqual(expected));
});
