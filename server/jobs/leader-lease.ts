// The leader lease's decisions, pure: what to write given the row read and `now`, and whether this process leads
// after the write. The I/O (read, compare-and-set, timers, starting and stopping the work) is in leader.ts.
import type { LeaseRow } from "../../db/rows/leases";

/**
 * ttlMs: how long a written lease holds; renewMs: how often the holder renews (and a follower looks); marginMs: how
 * long before its lease expires a holder that could not renew stops its work (clock skew and a late timer).
 */
export type LeaseTiming = { ttlMs: number; renewMs: number; marginMs: number };

/** Renewed every 4 s and held 12 s: a follower takes over at most ~12 s after the leader's last renewal. */
export const LEASE_TIMING: LeaseTiming = { ttlMs: 12_000, renewMs: 4_000, marginMs: 2_000 };

/** After a store error, look again this soon (ms) rather than a whole renew period later. */
const RETRY_MS = 1_000;
/** A follower looks again this long (ms) after the lease it saw expires, so it takes over at once. */
const AFTER_EXPIRY_MS = 25;

/**
 * The row to write at `now`: the lease renewed when `me` holds it (keeping its since), taken when it is absent or
 * expired; null while another process holds a live lease.
 */
export function leaseClaim(row: LeaseRow | null, me: string, now: number, t: LeaseTiming): LeaseRow | null {
  if (row !== null && row.holder !== me && row.expiresAt > now) return null;
  return { holder: me, since: row !== null && row.holder === me ? row.since : now, expiresAt: now + t.ttlMs };
}

/** What this process knows: whether it runs the work, and until when (Unix ms) its last written lease holds. */
export type LeaderState = { leading: boolean; expiresAt: number };

/**
 * What a tick saw: its claim was written (`won`), another process holds a live lease (`held`), or the store did not
 * answer or the row changed under the write (`failed`).
 */
export type LeaseOutcome = { kind: "won"; lease: LeaseRow } | { kind: "held"; lease: LeaseRow } | { kind: "failed" };

/** The next state, whether to start or stop the work now, and how long (ms) until the next tick. */
export type LeaseStep = LeaderState & { change: "start" | "stop" | null; nextInMs: number };

/**
 * A holder that cannot renew keeps leading only while its lease is sure to hold past the next try; a follower
 * looks again just after the lease it saw expires (or a renew period later, whichever is sooner).
 */
export function leaseStep(prev: LeaderState, outcome: LeaseOutcome, now: number, t: LeaseTiming): LeaseStep {
  if (outcome.kind === "won")
    return {
      leading: true,
      expiresAt: outcome.lease.expiresAt,
      change: prev.leading ? null : "start",
      nextInMs: t.renewMs,
    };
  if (outcome.kind === "held") {
    const untilFree = Math.max(0, outcome.lease.expiresAt - now) + AFTER_EXPIRY_MS;
    return {
      leading: false,
      expiresAt: 0,
      change: prev.leading ? "stop" : null,
      nextInMs: Math.min(t.renewMs, untilFree),
    };
  }
  const retry = Math.min(t.renewMs, RETRY_MS);
  if (prev.leading && now + retry < prev.expiresAt - t.marginMs)
    return { leading: true, expiresAt: prev.expiresAt, change: null, nextInMs: retry };
  return { leading: false, expiresAt: 0, change: prev.leading ? "stop" : null, nextInMs: retry };
}
