import { describe, expect, it } from "vitest";
import { capacityFor, kneeOf } from "./answer";
import type { CurvePoint } from "./curve";

const curve = (pairs: [number, number][]): CurvePoint[] =>
  pairs.map(([blocks, hitRate]) => ({
    blocks,
    hitRate,
    hitTokens: hitRate * 1000,
    byClass: { system_prompt: 0, tool_definitions: 0, conversation: 0, subagent_state: 0 },
  }));

const CURVE = curve([
  [0, 0],
  [10, 0.3],
  [20, 0.5],
  [30, 0.6],
  [40, 0.62],
]);

describe("capacityFor", () => {
  it.each([
    { target: 0.5, blocks: 20, below: 10 },
    { target: 0.45, blocks: 20, below: 10 },
    { target: 0.3, blocks: 10, below: 0 },
    { target: 0.61, blocks: 40, below: 30 },
  ])("target $target → $blocks blocks (after $below)", ({ target, blocks, below }) => {
    const a = capacityFor(CURVE, target, 64, 250_000);
    expect(a.size).toMatchObject({ blocks, tokens: blocks * 64, gigabytes: (blocks * 64 * 250_000) / 1e9 });
    expect(a.below?.blocks).toBe(below);
    expect(a.best).toBe(0.62);
  });

  it("says when no size on the curve reaches the target", () => {
    expect(capacityFor(CURVE, 0.7, 64, 1)).toEqual({ target: 0.7, size: null, below: null, best: 0.62 });
  });

  it.each([0, -0.1, 1.2, Number.NaN])("refuses target %s", (target) => {
    expect(() => capacityFor(CURVE, target, 64, 1)).toThrow(/target hit rate/);
  });
});

describe("kneeOf", () => {
  it.each([
    { name: "concave curve", points: CURVE, knee: 20 },
    {
      name: "a cliff (a working set that fits at 25 blocks)",
      points: curve([0, 5, 10, 15, 20, 25, 30, 35, 40].map((b) => [b, b < 25 ? 0.1 * (b / 25) : 0.8])),
      knee: 25,
    },
    {
      name: "1 − e^(−x/10) over 0..100: where the slope falls to the chord's",
      points: curve(Array.from({ length: 101 }, (_, x) => [x, 1 - Math.exp(-x / 10)])),
      knee: Math.round(-10 * Math.log((10 * (1 - Math.exp(-10))) / 100)),
    },
  ])("$name → $knee blocks", ({ points, knee }) => {
    expect(kneeOf(points, 16, 1)?.blocks).toBe(knee);
  });

  it.each([
    ["a straight line", curve([0, 10, 20, 30].map((b) => [b, b / 100]))],
    ["a flat curve", curve([0, 10, 20].map((b) => [b, 0]))],
    ["a convex curve (gains keep growing)", curve([0, 10, 20, 30].map((b) => [b, (b / 30) ** 2]))],
    [
      "two points",
      curve([
        [0, 0],
        [10, 0.5],
      ]),
    ],
  ])("is null for %s", (_, points) => {
    expect(kneeOf(points, 16, 1)).toBeNull();
  });
});
