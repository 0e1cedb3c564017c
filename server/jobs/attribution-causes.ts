import type { CausesRow } from "../../db/rows/attribution";
import type { Attribution } from "../../lib/attribution";

// What is stored for a judged turn, on either engine (attribution-request.ts on SQLite, attribution-pg.ts on
// PostgreSQL): its causes row, from the attribution and the turn before it in the same trajectory.

/** The retention policy version in a requests row's policy_versions JSON (null: none known). */
export function retentionVersionOf(policyVersions: string | undefined): number | null {
  const v = policyVersions ? (JSON.parse(policyVersions) as { retention?: unknown }).retention : undefined;
  return typeof v === "number" ? v : null;
}

/** A turn's causes row: its tokens by cause, the main removal's reason, and what its agent held while it waited. */
export function causesRowOf(
  r: { rid: number; arrivedAt: number; cachedTokens: number },
  a: Attribution,
  retentionVersion: number | null,
  prev: { input: number; finishedAt: number | null } | undefined,
): CausesRow {
  const c = a.tokens;
  return {
    rid: r.rid,
    arrivedAt: r.arrivedAt,
    recomputed: a.recomputed,
    cold: c.cold,
    diverged: c.diverged,
    evicted: c.evicted,
    routedAway: c.routed_away,
    unknown: c.unknown,
    evictedReason: a.mainRemoval?.reason ?? (c.evicted > 0 ? "unknown" : null),
    retentionVersion,
    heldTokens: prev ? prev.input : null,
    waitMs: prev?.finishedAt ? Math.max(0, r.arrivedAt - prev.finishedAt) : null,
    survivedTokens: prev ? Math.min(r.cachedTokens, prev.input) : null,
  };
}
