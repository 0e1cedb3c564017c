import { describe, expect, it } from "vitest";
import { SQLITE } from "../../test/stores";
import { authStoreCases } from "./auth-store.cases";
import { loginLimitCases } from "./login-limit.cases";
import { attemptPlan, DEFAULT_LIMITS, limitDecision, type AttemptPlan, type RecentFailures } from "./rate-limit";

const T = 1_800_000_000_000;
const cfg = { windowMs: 60_000, perAccount: 3, perAddress: 5 };
const none: RecentFailures = { count: 0, oldest: null };

describe("limitDecision", () => {
  it.each<[string, RecentFailures, RecentFailures, { who: string; retryAfter: number } | null]>([
    ["no failures", none, none, null],
    ["account below its limit", { count: 2, oldest: T - 10_000 }, none, null],
    [
      "account at its limit: wait until the oldest leaves",
      { count: 3, oldest: T - 10_000 },
      none,
      { who: "this account", retryAfter: 50 },
    ],
    [
      "account over its limit (two processes counted at once)",
      { count: 7, oldest: T - 59_500 },
      none,
      { who: "this account", retryAfter: 1 },
    ],
    ["address at its limit", none, { count: 5, oldest: T - 1 }, { who: "your address", retryAfter: 60 }],
    [
      "both at their limit: the account is named",
      { count: 3, oldest: T },
      { count: 5, oldest: T },
      { who: "this account", retryAfter: 60 },
    ],
    [
      "a count without an oldest time (bad row): the whole window",
      { count: 3, oldest: null },
      none,
      { who: "this account", retryAfter: 60 },
    ],
    [
      "an oldest time in the future (clock skew): at most window + skew",
      { count: 3, oldest: T + 30_000 },
      none,
      { who: "this account", retryAfter: 90 },
    ],
    [
      "an oldest time already out of the window: at least one second",
      { count: 3, oldest: T - 120_000 },
      none,
      { who: "this account", retryAfter: 1 },
    ],
    ["a negative count (bad row) blocks nothing", { count: -4, oldest: T }, { count: -1, oldest: T }, null],
  ])("%s", (_, account, address, want) => {
    const got = limitDecision(account, address, T, cfg);
    if (want === null) return expect(got).toBeNull();
    expect(got?.retryAfter).toBe(want.retryAfter);
    expect(got?.message).toContain(`for ${want.who}.`);
  });

  it.each([
    [1, "1 minute"],
    [60, "1 minute"],
    [61, "2 minutes"],
    [900, "15 minutes"],
  ])("a wait of %i s reads %s", (seconds, words) => {
    const got = limitDecision({ count: 3, oldest: T + seconds * 1000 - cfg.windowMs }, none, T, cfg);
    expect(got?.message).toBe(`Too many failed sign-in attempts for this account. Try again in ${words}.`);
  });
});

describe("attemptPlan", () => {
  it.each<[string, string | null, AttemptPlan]>([
    [
      "a browser the account does not know: under the account's and the address's limits",
      null,
      {
        counted: ["a:ann", "i:10.0.0.1"],
        limits: [
          { key: "a:ann", limit: 5 },
          { key: "i:10.0.0.1", limit: 20 },
        ],
        clearedOnSuccess: ["a:ann"],
        returnedOnSuccess: ["i:10.0.0.1"],
      },
    ],
    [
      "a known device: its own limit only, counted against all three, its success clears only itself",
      "f00d",
      {
        counted: ["a:ann", "i:10.0.0.1", "d:f00d"],
        limits: [{ key: "d:f00d", limit: 5 }],
        clearedOnSuccess: ["d:f00d"],
        returnedOnSuccess: ["a:ann", "i:10.0.0.1"],
      },
    ],
  ])("%s", (_, device, want) => {
    expect(attemptPlan({ account: "ann", address: "10.0.0.1", device }, DEFAULT_LIMITS)).toEqual(want);
  });
});

authStoreCases(SQLITE);
loginLimitCases(SQLITE);
