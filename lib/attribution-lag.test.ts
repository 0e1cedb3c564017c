import { describe, expect, it } from "vitest";
import { attributionLag, describeLag } from "./attribution-lag";

const NOW = 1_764_417_600_000;

describe("attributionLag", () => {
  it.each([
    ["nothing pending", null, { caughtUp: true, behindMs: 0, oldestPendingAt: null }],
    [
      "oldest pending arrived 4 min ago",
      NOW - 240_000,
      { caughtUp: false, behindMs: 240_000, oldestPendingAt: NOW - 240_000 },
    ],
    [
      "a clock ahead of now never gives a negative lag",
      NOW + 5_000,
      { caughtUp: false, behindMs: 0, oldestPendingAt: NOW + 5_000 },
    ],
  ])("%s", (_, oldest, want) => {
    expect(attributionLag(oldest, NOW)).toEqual(want);
  });
});

describe("describeLag", () => {
  it.each([
    [null, "attributing: up to date"],
    [NOW - 3_000, "attributing: up to date"],
    [NOW - 45_000, "attributing: 45 s behind"],
    [NOW - 240_000, "attributing: 4 min behind"],
    [NOW - 3 * 3_600_000, "attributing: 3 h behind"],
    [NOW - 3 * 86_400_000, "attributing: 3 d behind"],
  ])("oldest pending %s → %s", (oldest, text) => {
    expect(describeLag(attributionLag(oldest, NOW))).toBe(text);
  });
});
