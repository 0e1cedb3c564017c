import { describe, expect, it } from "vitest";
import { rollupCover } from "./rollup-cover";

const MIN = 60_000;
const Q = 15 * MIN;
/** 2025-11-29T12:00:00Z: on a 15-minute boundary. */
const T = 1_764_417_600_000;

describe("rollupCover", () => {
  it.each([
    ["an empty range", T, T, { quarters: null, minutes: [], raw: [] }],
    ["an inverted range", T + MIN, T, { quarters: null, minutes: [], raw: [] }],
    [
      "inside one minute",
      T + 1_000,
      T + 59_000,
      { quarters: null, minutes: [], raw: [{ from: T + 1_000, to: T + 59_000 }] },
    ],
    [
      "across one minute boundary, no whole minute",
      T + 30_000,
      T + MIN + 30_000,
      { quarters: null, minutes: [], raw: [{ from: T + 30_000, to: T + MIN + 30_000 }] },
    ],
    [
      "exactly one minute",
      T + MIN,
      T + 2 * MIN,
      { quarters: null, minutes: [{ from: T + MIN, to: T + 2 * MIN }], raw: [] },
    ],
    [
      "whole minutes with raw edges, no whole quarter",
      T + 500,
      T + 3 * MIN + 500,
      {
        quarters: null,
        minutes: [{ from: T + MIN, to: T + 3 * MIN }],
        raw: [
          { from: T + 500, to: T + MIN },
          { from: T + 3 * MIN, to: T + 3 * MIN + 500 },
        ],
      },
    ],
    ["exactly one quarter", T, T + Q, { quarters: { from: T, to: T + Q }, minutes: [], raw: [] }],
    [
      "quarters, minutes and raw edges on both sides",
      T - 2 * MIN - 1,
      T + 2 * Q + 3 * MIN + 1,
      {
        quarters: { from: T, to: T + 2 * Q },
        minutes: [
          { from: T - 2 * MIN, to: T },
          { from: T + 2 * Q, to: T + 2 * Q + 3 * MIN },
        ],
        raw: [
          { from: T - 2 * MIN - 1, to: T - 2 * MIN },
          { from: T + 2 * Q + 3 * MIN, to: T + 2 * Q + 3 * MIN + 1 },
        ],
      },
    ],
  ])("%s", (_name, from, to, cover) => {
    expect(rollupCover(from, to)).toEqual(cover);
  });

  it("covers every minute of a range once, whatever its edges", () => {
    for (const [from, to] of [
      [T - 7 * MIN - 13, T + 3 * Q + 11 * MIN + 17],
      [T + 14 * MIN, T + 16 * MIN],
      [T + 1, T + Q - 1],
    ] as const) {
      const c = rollupCover(from, to);
      const pieces = [...(c.quarters ? [c.quarters] : []), ...c.minutes, ...c.raw].sort((a, b) => a.from - b.from);
      expect(pieces[0]!.from).toBe(from);
      expect(pieces.at(-1)!.to).toBe(to);
      for (let i = 1; i < pieces.length; i++) expect(pieces[i]!.from).toBe(pieces[i - 1]!.to);
    }
  });
});
