import { describe, expect, it } from "vitest";
import { bucketAt, miniLinePath, miniLineY } from "./mini-line";

const box = { top: 4, height: 50, max: 100 };

describe("miniLineY", () => {
  it.each([
    [100, 4],
    [0, 54],
    [50, 29],
    [150, 4],
    [-5, 54],
  ])("%d → %d", (v, y) => expect(miniLineY(v, box)).toBe(y));

  it("puts everything at the bottom when max is 0", () => {
    expect(miniLineY(3, { ...box, max: 0 })).toBe(54);
  });
});

describe("miniLinePath", () => {
  it.each([
    ["no values", [], ""],
    ["only gaps", [null, null], ""],
    ["one run", [100, 50, 0], "M0.5 4L1.5 29L2.5 54"],
    ["a gap breaks the line", [100, 100, null, 0, 0], "M0.5 4L1.5 4M3.5 54L4.5 54"],
    ["a point alone is a short level stroke", [null, 50, null], "M1.2 29H1.8"],
    ["a point alone at the end", [0, 0, null, 100], "M0.5 54L1.5 54M3.2 4H3.8"],
    ["NaN counts as a gap", [50, Number.NaN, 50, 50], "M0.2 29H0.8M2.5 29L3.5 29"],
  ])("%s", (_name, values, want) => {
    expect(miniLinePath(values as (number | null)[], box)).toBe(want);
  });
});

describe("bucketAt", () => {
  it.each([
    [0, 200, 10, 0],
    [19.9, 200, 10, 0],
    [20, 200, 10, 1],
    [199, 200, 10, 9],
    [250, 200, 10, 9],
    [-4, 200, 10, 0],
    [10, 200, 0, null],
    [10, 0, 10, null],
  ])("offset %d of %d px, %d buckets → %s", (offset, width, count, want) => {
    expect(bucketAt(offset, width, count)).toBe(want);
  });
});
