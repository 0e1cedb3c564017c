import { describe, expect, it } from "vitest";
import { inTimeOrder } from "./worker-columns";

describe("inTimeOrder: a worker's columns as the database aggregated them, in bucket order", () => {
  it.each([
    ["no buckets", [], [], [], [], [], []],
    ["one bucket", [10], [0.5], [null], [10], [0.5], [null]],
    ["already in order", [10, 20, 40], [0.1, null, 0.3], [1, 0, null], [10, 20, 40], [0.1, null, 0.3], [1, 0, null]],
    ["reversed", [40, 20, 10], [0.3, null, 0.1], [null, 0, 1], [10, 20, 40], [0.1, null, 0.3], [1, 0, null]],
    [
      "shuffled, values kept with their bucket",
      [20, 40, 10],
      [null, 0.3, 0.1],
      [0, null, 1],
      [10, 20, 40],
      [0.1, null, 0.3],
      [1, 0, null],
    ],
    ["only nulls", [30, 0], [null, null], [null, null], [0, 30], [null, null], [null, null]],
  ])("%s", (_name, t, util, hitRate, et, eu, eh) => {
    expect(inTimeOrder({ workerId: "w", t, util, hitRate })).toEqual({ workerId: "w", t: et, util: eu, hitRate: eh });
  });

  it("returns the same columns when they are in order (no copy)", () => {
    const c = { workerId: "w", t: [1, 2], util: [null, 1], hitRate: [0, null] };
    expect(inTimeOrder(c)).toBe(c);
  });
});
