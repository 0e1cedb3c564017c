import { describe, expect, it } from "vitest";
import { median, quantile, quantileSorted } from "./quantile";

describe("quantileSorted (nearest rank)", () => {
  const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  it.each<[number[], number, number | null]>([
    [[], 0.5, null],
    [[42], 0.5, 42],
    [[42], 0.95, 42],
    [ten, 0.5, 5],
    [ten, 0.95, 10],
    [ten, 0.9, 9],
    [ten, 0.1, 1],
    [ten, 0, 1],
    [ten, 1, 10],
    [[10, 20, 30, 40], 0.5, 20],
    [[10, 20, 30, 40, 50], 0.5, 30],
    [Array.from({ length: 100 }, (_, i) => i + 1), 0.95, 95],
    [Array.from({ length: 20 }, (_, i) => i + 1), 0.95, 19],
    [Array.from({ length: 21 }, (_, i) => i + 1), 0.95, 20],
  ])("quantileSorted(%j, %d) = %j", (sorted, p, expected) => {
    expect(quantileSorted(sorted, p)).toBe(expected);
  });

  it.each([0.5, 0.9, 0.95, 0.99])("p%d is exact by rank for every length up to 1000", (p) => {
    for (let n = 1; n <= 1000; n++) {
      const sorted = Array.from({ length: n }, (_, i) => i + 1);
      const pct = Math.round(p * 100);
      expect(quantileSorted(sorted, p)).toBe(Math.max(1, Math.ceil((pct * n) / 100 - 1e-9)));
    }
  });
});

describe("quantile (any order, the median is the lower middle)", () => {
  it.each<[number[], number, number | null]>([
    [[], 0.5, null],
    [[], 0.95, null],
    [[7], 0.5, 7],
    [[3, 1, 2], 0.5, 2],
    [[40, 10, 30, 20], 0.5, 20],
    [[5, 1, 4, 2, 3], 0.95, 5],
    [[2, 2, 2, 9], 0.5, 2],
  ])("quantile(%j, %d) = %j", (values, q, expected) => {
    expect(quantile(values, q)).toBe(expected);
  });

  it("leaves its input in place", () => {
    const values = [3, 1, 2];
    quantile(values, 0.5);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe("median (the mean of the two middle values for an even count)", () => {
  it.each<[number[], number | null]>([
    [[], null],
    [[7], 7],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[2, 2, 9, 1], 2],
  ])("median(%j) = %j", (values, expected) => {
    const copy = [...values];
    expect(median(values)).toBe(expected);
    expect(values).toEqual(copy);
  });
});
