import { describe, expect, it } from "vitest";
import type { LeaseRow } from "../../db/rows/leases";
import { LEASE_TIMING, leaseClaim, leaseStep, type LeaseOutcome, type LeaderState } from "./leader-lease";

const T = 1_800_000_000_000;
const t = LEASE_TIMING;
const mine = (since: number, expiresAt: number): LeaseRow => ({ holder: "me", since, expiresAt });
const theirs = (since: number, expiresAt: number): LeaseRow => ({ holder: "other", since, expiresAt });

describe("leaseClaim", () => {
  it.each<[string, LeaseRow | null, LeaseRow | null]>([
    ["no lease yet: take it", null, { holder: "me", since: T, expiresAt: T + 12_000 }],
    ["my live lease: renew it, keeping since", mine(T - 60_000, T + 8_000), mine(T - 60_000, T + 12_000)],
    [
      "my expired lease (nobody took it): take it again, since kept",
      mine(T - 60_000, T - 1),
      mine(T - 60_000, T + 12_000),
    ],
    ["another's live lease: leave it", theirs(T - 60_000, T + 1), null],
    ["another's lease expiring this ms: it is free", theirs(T - 60_000, T), mine(T, T + 12_000)],
    ["another's expired lease: take it, since now", theirs(T - 60_000, T - 5_000), mine(T, T + 12_000)],
    ["a lease far in the future (clock skew) held by another: leave it", theirs(T, T + 3_600_000), null],
  ])("%s", (_, row, want) => {
    expect(leaseClaim(row, "me", T, t)).toEqual(want);
  });

  it("an empty holder id is another process, not me", () => {
    expect(leaseClaim({ holder: "", since: T, expiresAt: T + 1 }, "me", T, t)).toBeNull();
  });
});

describe("leaseStep", () => {
  const follower: LeaderState = { leading: false, expiresAt: 0 };
  const leader = (expiresAt: number): LeaderState => ({ leading: true, expiresAt });
  const won: LeaseOutcome = { kind: "won", lease: mine(T, T + 12_000) };
  const held = (expiresAt: number): LeaseOutcome => ({ kind: "held", lease: theirs(T - 1_000, expiresAt) });
  const failed: LeaseOutcome = { kind: "failed" };

  it.each<[string, LeaderState, LeaseOutcome, Partial<ReturnType<typeof leaseStep>>]>([
    ["a follower that wins starts the work", follower, won, { leading: true, change: "start", nextInMs: 4_000 }],
    ["a leader that renews changes nothing", leader(T + 8_000), won, { leading: true, change: null, nextInMs: 4_000 }],
    [
      "a leader that finds another holder stops",
      leader(T + 8_000),
      held(T + 12_000),
      { leading: false, change: "stop" },
    ],
    [
      "a follower that sees a live lease waits a renew period",
      follower,
      held(T + 12_000),
      { change: null, nextInMs: 4_000 },
    ],
    ["…or looks again just after it expires", follower, held(T + 1_500), { change: null, nextInMs: 1_525 }],
    ["…at once when it has just expired", follower, held(T), { change: null, nextInMs: 25 }],
    [
      "a leader whose renew failed keeps leading while its lease holds",
      leader(T + 8_000),
      failed,
      { leading: true, change: null, nextInMs: 1_000 },
    ],
    ["…and stops when the next try could come too late", leader(T + 3_000), failed, { leading: false, change: "stop" }],
    ["…or its lease has already expired", leader(T - 1), failed, { leading: false, change: "stop" }],
    ["a follower whose look failed retries soon", follower, failed, { leading: false, change: null, nextInMs: 1_000 }],
  ])("%s", (_, prev, outcome, want) => {
    expect(leaseStep(prev, outcome, T, t)).toMatchObject(want);
  });

  it("a leader that fails until its lease is nearly gone stops before another process may take it", () => {
    let state: LeaderState = leader(T + t.ttlMs);
    let at = T;
    let stoppedAt: number | null = null;
    while (stoppedAt === null) {
      const step = leaseStep(state, failed, at, t);
      state = step;
      if (step.change === "stop") stoppedAt = at;
      else at += step.nextInMs;
    }
    expect(stoppedAt).toBeLessThan(T + t.ttlMs - t.marginMs);
    expect(stoppedAt).toBeGreaterThanOrEqual(T + t.ttlMs - t.marginMs - 1_000);
  });
});
