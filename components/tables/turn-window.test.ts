import { describe, expect, it } from "vitest";
import { turnWindow } from "./turn-window";

describe("turnWindow", () => {
  it.each([
    ["top of 500 rows: the viewport and the margin below", 500, 0, { start: 0, end: 26, before: 0, after: 474 }],
    ["scrolled to row 100", 500, 3_000, { start: 92, end: 126, before: 92, after: 374 }],
    ["the bottom", 500, 500 * 30 - 520, { start: 474, end: 500, before: 474, after: 0 }],
    ["fewer rows than the viewport holds: all of them", 5, 0, { start: 0, end: 5, before: 0, after: 0 }],
    ["no rows", 0, 0, { start: 0, end: 0, before: 0, after: 0 }],
    ["a scroll position past the end (rows went away)", 10, 9_000, { start: 10, end: 10, before: 10, after: 0 }],
    ["a negative scroll position (overscroll bounce)", 500, -40, { start: 0, end: 26, before: 0, after: 474 }],
  ])("%s", (_n, count, top, want) => {
    const w = turnWindow(count, top, 520, 30, 8);
    expect(w).toEqual(want);
    expect(w.before + (w.end - w.start) + w.after).toBe(count);
  });
});
