import { describe, expect, it } from "vitest";
import { SEAL_MAX_MS, sealSpan } from "./chart-seal";

// When the leader seals PostgreSQL's chart chunks (5-minute chunks, a minute's grace after the newest bucket).

const MIN = 60_000;
const H = 3_600_000;
const T = 1_800_000_000_000; // a chunk boundary

describe("sealSpan", () => {
  const cases: [
    string,
    { sealed: number | null; oldest: number | null; newest: number | null },
    number,
    number | null,
  ][] = [
    ["nothing stored", { sealed: null, oldest: null, newest: null }, T, null],
    [
      "never sealed: from the oldest bucket's chunk",
      { sealed: null, oldest: T + 2 * MIN, newest: T + 20 * MIN },
      T + H,
      T + 15 * MIN,
    ],
    ["a chunk is complete a minute after it ends", { sealed: T, oldest: T, newest: T + 6 * MIN }, T + H, T + 5 * MIN],
    ["not before", { sealed: T, oldest: T, newest: T + 6 * MIN - 30_000 }, T + H, null],
    ["already sealed that far", { sealed: T + 5 * MIN, oldest: T, newest: T + 6 * MIN }, T + H, null],
    [
      "the clock holds back samples stamped ahead of it",
      { sealed: T, oldest: T, newest: T + H },
      T + 11 * MIN,
      T + 10 * MIN,
    ],
    ["at most six hours a step", { sealed: T, oldest: T, newest: T + 24 * H }, T + 25 * H, T + SEAL_MAX_MS],
  ];
  it.each(cases)("%s", (_, state, now, want) => expect(sealSpan(state, now)?.to ?? null).toBe(want));
});
