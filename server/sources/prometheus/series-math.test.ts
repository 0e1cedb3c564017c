import { describe, expect, it } from "vitest";
import { bucketIncrease, counterIncrease, histogramQuantile, mergeBuckets, ratePerSecond } from "./series-math";

describe("counterIncrease", () => {
  it.each([
    [undefined, 10, null],
    [10, 25, 15],
    [25, 25, 0],
    [1000, 40, 40],
    [10, NaN, null],
    [10, -1, null],
    [10, Infinity, null],
  ])("%s → %s is %s", (prev, cur, want) => expect(counterIncrease(prev, cur)).toBe(want));
});

describe("ratePerSecond", () => {
  it.each([
    [30, 15_000, 2],
    [null, 15_000, null],
    [30, 0, null],
  ])("%s over %s ms", (inc, ms, want) => expect(ratePerSecond(inc, ms)).toBe(want));
});

const b = (...pairs: [number, number][]) => pairs.map(([le, count]) => ({ le, count }));

describe("histogramQuantile", () => {
  it("interpolates inside the bucket holding the rank", () => {
    const buckets = b([0.1, 0], [0.2, 50], [0.4, 100], [Infinity, 100]);
    expect(histogramQuantile(0.5, buckets)).toBeCloseTo(0.2);
    expect(histogramQuantile(0.25, buckets)).toBeCloseTo(0.15);
    expect(histogramQuantile(0.95, buckets)).toBeCloseTo(0.38);
  });
  it("a rank in +Inf answers the highest finite bound", () =>
    expect(histogramQuantile(0.99, b([1, 10], [Infinity, 20]))).toBe(1));
  it("no observations is null", () => expect(histogramQuantile(0.5, b([1, 0], [Infinity, 0]))).toBeNull());
  it("a bad q is null", () => expect(histogramQuantile(1.5, b([1, 1], [Infinity, 1]))).toBeNull());
});

describe("bucketIncrease", () => {
  it("subtracts bucket by bucket", () =>
    expect(bucketIncrease(b([1, 2], [Infinity, 4]), b([1, 5], [Infinity, 9]))).toEqual(b([1, 3], [Infinity, 5])));
  it("a restart (any bucket dropped) takes the current histogram", () =>
    expect(bucketIncrease(b([1, 10], [Infinity, 20]), b([1, 1], [Infinity, 2]))).toEqual(b([1, 1], [Infinity, 2])));
  it("changed bounds take the current histogram", () =>
    expect(bucketIncrease(b([1, 1], [Infinity, 2]), b([2, 3], [Infinity, 4]))).toEqual(b([2, 3], [Infinity, 4])));
});

describe("mergeBuckets", () => {
  it("sums series with the same bounds", () =>
    expect(mergeBuckets([b([1, 1], [Infinity, 2]), b([1, 3], [Infinity, 3])])).toEqual(b([1, 4], [Infinity, 5])));
});
