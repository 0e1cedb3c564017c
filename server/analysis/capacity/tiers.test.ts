import { describe, expect, it } from "vitest";
import { missRatioCurves } from "./mrc";
import { generateTrace, turnOf } from "./test-support";
import { tierGrid } from "./tiers";

const chain = (...names: string[]) => Uint32Array.from(names.flatMap((n) => [n.charCodeAt(0), n.length]));
const GB = { bytesPerToken: 1e6, gbPerSecond: 1 };

describe("tierGrid by hand", () => {
  const turns = [
    turnOf({ arrivedAt: 1, blocks: chain("a", "b", "c", "d") }),
    turnOf({ arrivedAt: 2, blocks: chain("a", "b", "c", "e", "f") }),
  ];

  it.each([
    { device: 0, tier: 0, dev: 0, onTier: 0 },
    { device: 1, tier: 0, dev: 16, onTier: 0 },
    { device: 1, tier: 2, dev: 16, onTier: 32 },
    { device: 0, tier: 3, dev: 0, onTier: 48 },
    { device: 2, tier: 9, dev: 32, onTier: 16 },
    { device: 6, tier: 6, dev: 48, onTier: 0 },
  ])(
    "device $device + tier $tier blocks: $dev tokens on device, $onTier onboarded",
    ({ device, tier, dev, onTier }) => {
      const g = tierGrid({ turns }, { device: [device], tier: [tier], scope: "worker", ...GB });
      if (g.empty) throw new Error(g.empty);
      expect(g.cells[0]).toMatchObject({ deviceTokens: dev, tierTokens: onTier, recomputedTokens: 144 - dev - onTier });
      expect(g.cells[0]!.onboardSeconds).toBeCloseTo((onTier * 1e6) / 1e9);
      expect(g.cells[0]!.tierTurns).toBe(onTier > 0 ? 1 : 0);
      expect(g.cells[0]!.onboardMsPerTierTurn).toBe(onTier > 0 ? onTier : null);
    },
  );

  it("a prefix runs on through the tier: a block past the device is onboarded, not recomputed", () => {
    const t = [
      turnOf({ arrivedAt: 1, blocks: chain("a", "b") }),
      turnOf({ arrivedAt: 2, blocks: chain("x", "y", "z"), trajectoryId: "u" }),
      turnOf({ arrivedAt: 3, blocks: chain("a", "b") }),
    ];
    const g = tierGrid({ turns: t }, { device: [4], tier: [1], scope: "shared", ...GB });
    if (g.empty) throw new Error(g.empty);
    expect(g.cells[0]).toMatchObject({ deviceTokens: 16, tierTokens: 16 });
  });
});

describe("tierGrid over generated traffic", () => {
  const trace = generateTrace({ seed: 11, trajectories: 30, turns: 10, workers: 3, openingBlocks: 8 });
  const window = { turns: trace.turns, firstRuns: trace.firstRuns };
  const device = [0, 5, 20, 60, 200];
  const tier = [0, 10, 50, 400];

  it.each(["worker", "shared"] as const)(
    "%s scope: shares sum to 1; H = 0 and D + H agree with the single cache",
    (scope) => {
      const g = tierGrid(window, { device, tier, scope, ...GB });
      const c = missRatioCurves(window, { maxBlocks: 600, workers: 1, points: 600 });
      if (g.empty || c.empty) throw new Error("empty");
      const curve = scope === "worker" ? c.perWorker : c.shared;
      const hitAt = (blocks: number) => curve.points.find((p) => p.blocks === blocks)!.hitTokens;
      expect(g.cells).toHaveLength(device.length * tier.length);
      for (const cell of g.cells) {
        expect(cell.device + cell.tier + cell.recomputed).toBeCloseTo(1, 12);
        expect(cell.deviceTokens + cell.tierTokens).toBe(hitAt(cell.deviceBlocks + cell.tierBlocks));
        if (cell.tierBlocks === 0) expect(cell.deviceTokens).toBe(hitAt(cell.deviceBlocks));
        if (cell.tierBlocks === 0) expect(cell.tierTokens).toBe(0);
      }
      expect(g.cells.some((cell) => cell.tier > 0.05)).toBe(true);
    },
  );
});

describe("tierGrid on bad input", () => {
  it.each([
    [{ device: [], tier: [0] }, /device takes/],
    [{ device: [1], tier: [-1] }, /tier takes/],
    [{ device: [1.5], tier: [0] }, /device takes/],
    [{ device: [1], tier: [0], bytesPerToken: 0 }, /bytesPerToken/],
    [{ device: [1], tier: [0], gbPerSecond: -1 }, /gbPerSecond/],
  ])("refuses %o", (opts, message) => {
    expect(() => tierGrid({ turns: [] }, { scope: "worker", ...GB, ...opts })).toThrow(message);
  });

  it("flags a window without chains as empty", () => {
    const g = tierGrid(
      { turns: [turnOf({ arrivedAt: 1, blocks: null })] },
      { device: [1], tier: [1], scope: "worker", ...GB },
    );
    expect(g).toMatchObject({ empty: "no chains in the window", turns: 1 });
  });
});
