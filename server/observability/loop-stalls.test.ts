import { describe, expect, it } from "vitest";
import { STALL_MS, stallOf } from "./loop-stalls";

describe("stallOf: how late a tick ran, and whether it counts as a stall", () => {
  it.each([
    ["on time", 1_000, 1_000, 0, false],
    ["early (a timer may fire a little early)", 1_000, 990, 0, false],
    ["late but under a second", 1_000, 1_999, 999, false],
    ["a second late", 1_000, 1_000 + STALL_MS, STALL_MS, true],
    ["five seconds late (a lock wait)", 1_000, 6_000.4, 5_000, true],
  ])("%s", (_what, expected, ran, late, stall) => {
    expect(stallOf(expected, ran)).toEqual({ lateMs: late, stall });
  });
});
