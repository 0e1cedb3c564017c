import { describe, expect, it } from "vitest";
import { hitRate, kvUtilization, percentile, workersByRole, type WorkerSample } from "./overview";

describe("percentile (nearest rank)", () => {
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
  ])("percentile(%j, %d) = %j", (sorted, p, expected) => {
    expect(percentile(sorted, p)).toBe(expected);
  });

  it.each([0.5, 0.9, 0.95, 0.99])("p%d is exact by rank for every length up to 1000", (p) => {
    for (let n = 1; n <= 1000; n++) {
      const sorted = Array.from({ length: n }, (_, i) => i + 1);
      const pct = Math.round(p * 100);
      expect(percentile(sorted, p)).toBe(Math.max(1, Math.ceil((pct * n) / 100 - 1e-9)));
    }
  });
});

describe("hitRate", () => {
  it.each<[number, number, number | null]>([
    [0, 0, null],
    [5, 0, null],
    [0, 100, 0],
    [90, 100, 0.9],
    [100, 100, 1],
  ])("hitRate(%i, %i) = %j", (hit, query, expected) => {
    expect(hitRate(hit, query)).toBe(expected);
  });
});

const w = (workerId: string, role: string | null, kvActiveBlocks: number, kvTotalBlocks: number): WorkerSample => ({ workerId, role, kvActiveBlocks, kvTotalBlocks });

describe("kvUtilization", () => {
  it.each<[string, WorkerSample[], number | null]>([
    ["no workers", [], null],
    ["no capacity", [w("a", null, 0, 0)], null],
    ["one worker", [w("a", null, 25, 100)], 0.25],
    ["capacity-weighted, not a mean of ratios", [w("a", null, 900, 1000), w("b", null, 0, 10)], 900 / 1010],
    ["idle workers", [w("a", null, 0, 100), w("b", null, 0, 100)], 0],
  ])("%s", (_name, samples, expected) => {
    expect(kvUtilization(samples)).toBe(expected);
  });
});

describe("workersByRole", () => {
  it.each<[WorkerSample[], Record<string, number>]>([
    [[], {}],
    [[w("a", "decode", 0, 1), w("b", "decode", 0, 1), w("c", "prefill", 0, 1)], { decode: 2, prefill: 1 }],
    [[w("a", null, 0, 1), w("b", "aggregated", 0, 1)], { unknown: 1, aggregated: 1 }],
  ])("%j → %j", (samples, expected) => {
    expect(workersByRole(samples)).toEqual(expected);
  });
});
