import { describe, expect, it } from "vitest";
import {
  clampView,
  dragView,
  formatOffset,
  MIN_SPAN_MS,
  overlaps,
  panView,
  parseZoom,
  tickStep,
  timeAt,
  timeTicks,
  xOf,
  zoomParam,
  zoomView,
} from "./timeline";

const S = 1_764_400_000_000;
const B = { from: S, to: S + 600_000 };

describe("formatOffset", () => {
  it.each([
    [0, "0 s"],
    [250, "250 ms"],
    [1_000, "1 s"],
    [1_500, "1.5 s"],
    [1_250, "1.25 s"],
    [30_000, "30 s"],
    [60_000, "1 m"],
    [90_000, "1 m 30 s"],
    [600_000, "10 m"],
    [3_600_000, "1 h"],
    [3_900_000, "1 h 5 m"],
    [-5, "0 s"],
  ])("%i ms → %s", (ms, label) => expect(formatOffset(ms)).toBe(label));
});

describe("tickStep", () => {
  it.each([
    [600_000, 10, 60_000],
    [600_000, 8, 120_000],
    [120_000, 8, 15_000],
    [10_000, 10, 1_000],
    [1_000, 10, 100],
    [300, 6, 50],
    [5 * 86_400_000, 2, 3 * 86_400_000],
  ])("%i ms in %i ticks → a %i ms step", (span, n, step) => expect(tickStep(span, n)).toBe(step));
});

describe("timeTicks", () => {
  it("counts from the session's start: 0 s, 1 m, … over a 10-minute session", () => {
    const t = timeTicks(S, B, 10);
    expect(t.map((x) => x.label)).toEqual([
      "0 s",
      "1 m",
      "2 m",
      "3 m",
      "4 m",
      "5 m",
      "6 m",
      "7 m",
      "8 m",
      "9 m",
      "10 m",
    ]);
    expect(t[1]).toEqual({ t: S + 60_000, offset: 60_000, label: "1 m" });
  });

  it("labels a zoomed view by its offsets from the session's start, not from the view's", () => {
    expect(timeTicks(S, { from: S + 95_000, to: S + 125_000 }, 6).map((x) => x.label)).toEqual([
      "1 m 35 s",
      "1 m 40 s",
      "1 m 45 s",
      "1 m 50 s",
      "1 m 55 s",
      "2 m",
      "2 m 5 s",
    ]);
  });

  it("has no tick before the session's start and at most maxTicks + 1", () => {
    expect(timeTicks(S, { from: S - 5_000, to: S + 5_000 }, 5)[0]!.offset).toBe(0);
    for (const n of [3, 7, 12]) expect(timeTicks(S, B, n).length).toBeLessThanOrEqual(n + 1);
  });
});

describe("zoom", () => {
  it.each([
    ["inside stays", { from: S + 1_000, to: S + 61_000 }, { from: S + 1_000, to: S + 61_000 }],
    ["before the start is moved in", { from: S - 10_000, to: S + 20_000 }, { from: S, to: S + 30_000 }],
    ["after the end is moved in", { from: S + 590_000, to: S + 620_000 }, { from: S + 570_000, to: S + 600_000 }],
    ["wider than the session is the session", { from: S - 1, to: S + 700_000 }, B],
    [
      "narrower than the minimum widens",
      { from: S + 1_000, to: S + 1_010 },
      { from: S + 1_000, to: S + 1_000 + MIN_SPAN_MS },
    ],
  ])("clampView: %s", (_n, v, want) => expect(clampView(v, B)).toEqual(want));

  it("a session shorter than the minimum span shows whole", () => {
    expect(clampView({ from: S, to: S + 10 }, { from: S, to: S + 50 })).toEqual({ from: S, to: S + 50 });
  });

  it.each([
    ["in by half around the middle", B, 0.5, undefined, { from: S + 150_000, to: S + 450_000 }],
    [
      "in by half around a point keeps that point under the pointer",
      B,
      0.5,
      S + 100_000,
      { from: S + 50_000, to: S + 350_000 },
    ],
    ["out past the session is the session", { from: S + 100_000, to: S + 400_000 }, 4, undefined, B],
  ])("zoomView: %s", (_n, v, f, at, want) => expect(zoomView(v, B, f, at)).toEqual(want));

  it.each([
    ["later by a quarter", { from: S, to: S + 100_000 }, 0.25, { from: S + 25_000, to: S + 125_000 }],
    ["earlier stops at the start", { from: S + 10_000, to: S + 110_000 }, -0.25, { from: S, to: S + 100_000 }],
  ])("panView: %s", (_n, v, f, want) => expect(panView(v, B, f)).toEqual(want));

  it.each([
    ["left to right", 100, 300, { from: S + 60_000, to: S + 180_000 }],
    ["right to left is the same span", 300, 100, { from: S + 60_000, to: S + 180_000 }],
    ["a 3 px wobble is a click", 100, 103, null],
  ])("dragView: %s", (_n, x0, x1, want) => expect(dragView(x0, x1, B, B, 1_000)).toEqual(want));

  it("maps time to pixels and back", () => {
    const v = { from: S + 60_000, to: S + 120_000 };
    expect(xOf(S + 90_000, v, 600)).toBe(300);
    expect(timeAt(300, v, 600)).toBe(S + 90_000);
    expect(timeAt(-50, v, 600)).toBe(v.from);
    expect(xOf(S, v, 600)).toBe(-600);
  });

  it.each([
    [S - 10, S - 1, false],
    [S - 10, S, true],
    [S + 10, S + 20, true],
    [B.to, B.to + 5, true],
    [B.to + 1, B.to + 5, false],
  ])("overlaps [%i, %i] → %s", (a, b, want) => expect(overlaps(a, b, B)).toBe(want));
});

describe("zoom in the URL", () => {
  it.each([
    ["the whole session is no parameter", B, null],
    ["a span is its offsets from the start", { from: S + 30_000, to: S + 90_500 }, "30000-90500"],
  ])("zoomParam: %s", (_n, v, want) => expect(zoomParam(v, B)).toBe(want));

  it.each([
    ["absent", null, B],
    ["a span", "30000-90000", { from: S + 30_000, to: S + 90_000 }],
    ["past the end is clamped", "590000-700000", { from: S + 490_000, to: S + 600_000 }],
    ["reversed", "9000-3000", B],
    ["not numbers", "a-b", B],
    ["negative", "-5-100", B],
  ])("parseZoom: %s", (_n, v, want) => expect(parseZoom(v, B)).toEqual(want));
});
