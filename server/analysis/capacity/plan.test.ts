import { describe, expect, it } from "vitest";
import { missRatioCurves } from "./mrc";
import { capacityCurves, rateFor } from "./plan";
import { generateTrace, turnOf } from "./test-support";

describe("capacityCurves", () => {
  const trace = generateTrace({ seed: 31, trajectories: 40, turns: 10, workers: 3 });
  const window = { turns: trace.turns, firstRuns: trace.firstRuns };
  const opts = { maxBlocks: 400, workers: 3, points: 40 };

  it("is exact when the exact pass fits the budget", () => {
    const c = capacityCurves(window, { ...opts, memoryBytes: 512 * 2 ** 20 });
    if (c.empty) throw new Error(c.empty);
    expect(c.sampling).toBeNull();
    expect(c).toEqual({ ...missRatioCurves(window, opts), sampling: null });
  });

  it("samples when it does not (here at the lowest rate: nothing fits a budget of 1 byte)", () => {
    const c = capacityCurves(window, { ...opts, memoryBytes: 1 });
    if (c.empty) throw new Error(c.empty);
    expect(c.sampling?.rate).toBeCloseTo(0.001, 5);
    expect(c.perWorker.points).toHaveLength(41);
  });

  it("flags a window without chains, and refuses a budget of 0", () => {
    const turns = [turnOf({ arrivedAt: 1, blocks: null })];
    expect(capacityCurves({ turns }, { ...opts, memoryBytes: 1e9 })).toMatchObject({
      empty: "no chains in the window",
    });
    expect(() => capacityCurves(window, { ...opts, memoryBytes: 0 })).toThrow(/memoryBytes/);
  });
});

describe("rateFor", () => {
  it.each([
    [1e9, 1e9, 0.1],
    [1e9, 1e8, 0.05],
    [1e9, 2e7, 0.01],
    [1e9, 1e3, 0.001],
  ])("exact %d bytes in a budget of %d → rate %d", (exact, budget, rate) => {
    expect(rateFor(exact, budget)).toBe(rate);
  });
});
