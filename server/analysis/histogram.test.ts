import { describe, expect, it } from "vitest";
import { bucketValue, latencyBucket } from "../../lib/latency-buckets";
import { histogramQuantile } from "./histogram";
import { quantileSorted } from "../../lib/quantile";

describe("latencyBucket", () => {
  it.each([
    [0, 0],
    [1, 0],
    [1.05, 1],
    [1.1, 1],
    [1.11, 2],
    [168, Math.ceil(Math.log(168) / Math.log(1.1))],
    [1e12, 255],
  ])("%s ms → bucket %s", (ms, bucket) => expect(latencyBucket(ms)).toBe(bucket));

  it("a bucket's value lies inside the bucket's bounds", () => {
    for (const ms of [2, 17, 168, 912, 5000, 60_000]) {
      const b = latencyBucket(ms);
      expect(bucketValue(b)).toBeGreaterThan(1.1 ** (b - 1));
      expect(bucketValue(b)).toBeLessThanOrEqual(1.1 ** b);
    }
  });
});

describe("histogramQuantile", () => {
  it("is null for an empty histogram", () => {
    expect(histogramQuantile([], 0.5)).toBeNull();
    expect(histogramQuantile([{ bucket: 3, n: 0 }], 0.5)).toBeNull();
  });

  it("merges repeated buckets (minutes) before ranking", () => {
    const a = latencyBucket(100);
    const b = latencyBucket(1000);
    expect(
      histogramQuantile(
        [
          { bucket: b, n: 1 },
          { bucket: a, n: 2 },
          { bucket: b, n: 2 },
        ],
        0.5,
      ),
    ).toBeCloseTo(bucketValue(b));
    expect(
      histogramQuantile(
        [
          { bucket: b, n: 1 },
          { bucket: a, n: 3 },
        ],
        0.5,
      ),
    ).toBeCloseTo(bucketValue(a));
  });

  it.each([0.5, 0.95, 0.99])("q=%s is within 5%% of the exact nearest-rank quantile", (q) => {
    let seed = 7;
    const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const values = Array.from({ length: 5000 }, () => Math.round(50 + 3000 * rnd() ** 3));
    const counts = new Map<number, number>();
    for (const v of values) counts.set(latencyBucket(v), (counts.get(latencyBucket(v)) ?? 0) + 1);
    const exact = quantileSorted(
      [...values].sort((x, y) => x - y),
      q,
    )!;
    const approx = histogramQuantile(
      [...counts].map(([bucket, n]) => ({ bucket, n })),
      q,
    )!;
    expect(Math.abs(approx - exact) / exact).toBeLessThan(0.05);
  });
});
