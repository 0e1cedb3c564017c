import { describe, expect, it } from "vitest";
import { missRatioCurves } from "./mrc";
import { sampledCurves } from "./shards";
import { generateTrace, turnOf } from "./test-support";

describe("sampledCurves", () => {
  it("at rate 1 is the exact curve", () => {
    const trace = generateTrace({ seed: 21, trajectories: 20, turns: 8, workers: 3 });
    const window = { turns: trace.turns, firstRuns: trace.firstRuns };
    const opts = { maxBlocks: 300, workers: 3, points: 300 };
    const exact = missRatioCurves(window, opts);
    const sampled = sampledCurves(window, { ...opts, rate: 1 });
    if (exact.empty || sampled.empty) throw new Error("empty");
    expect(sampled.perWorker.points).toEqual(exact.perWorker.points);
    expect(sampled.shared.points).toEqual(exact.shared.points);
    expect(sampled.distinctBlocks).toBe(exact.distinctBlocks);
  });

  // About 1.3M block accesses, 110k distinct blocks, 100 trajectories at a time on 4 workers.
  it.each([
    { seed: 1, rate: 0.1 },
    { seed: 4, rate: 0.2 },
  ])(
    "seed $seed at rate $rate stays within its stated error from the stated size on",
    { timeout: 60_000 },
    ({ seed, rate }) => {
      const trace = generateTrace({
        seed,
        trajectories: 600,
        turns: 30,
        workers: 4,
        openings: 20,
        openingBlocks: 40,
        growth: 10,
        concurrent: 100,
      });
      const window = { turns: trace.turns, firstRuns: trace.firstRuns };
      const opts = { maxBlocks: 20_000, workers: 4, points: 100 };
      const exact = missRatioCurves(window, opts);
      const sampled = sampledCurves(window, { ...opts, rate });
      if (exact.empty || sampled.empty) throw new Error("empty");
      const s = sampled.sampling;
      expect(s.reliableFromBlocks).toBe(Math.ceil(100 / s.rate));
      for (const scope of ["perWorker", "shared"] as const) {
        const stated = s.errorPoints[scope]!;
        expect(stated).toBeGreaterThan(0);
        expect(stated).toBeLessThan(5);
        const worst = Math.max(
          ...exact[scope].points.map((p, i) =>
            p.blocks < s.reliableFromBlocks ? 0 : Math.abs(p.hitRate - sampled[scope].points[i]!.hitRate) * 100,
          ),
        );
        expect(worst).toBeLessThanOrEqual(stated);
      }
      expect(Math.abs(sampled.distinctBlocks - exact.distinctBlocks) / exact.distinctBlocks).toBeLessThan(0.05);
    },
  );

  it.each([0, -0.5, 1.5, Number.NaN])("refuses rate %s", (rate) => {
    expect(() => sampledCurves({ turns: [] }, { maxBlocks: 10, workers: 1, rate })).toThrow(/rate must be/);
  });

  it("flags a window without chains as empty", () => {
    const turns = [turnOf({ arrivedAt: 1, blocks: null })];
    expect(sampledCurves({ turns }, { maxBlocks: 10, workers: 1, rate: 0.5 })).toMatchObject({
      empty: "no chains in the window",
    });
  });
});
