import { describe, expect, it } from "vitest";
import { hitRate, kvUtilization, workersByRole, type WorkerSample } from "./overview";

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

const w = (workerId: string, role: string | null, kvActiveBlocks: number, kvTotalBlocks: number): WorkerSample => ({
  workerId,
  role,
  kvActiveBlocks,
  kvTotalBlocks,
});

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
