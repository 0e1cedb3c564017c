// What a published policy version did: the same metrics over equal windows before and after a target applied it.
// Pure: the caller loads the rows and passes the time. No data is null (a gap), never 0.

import { hitRate } from "./overview";
import { quantileSorted } from "./quantile";
import type { Span, CauseTotals, WindowRows, AckRow } from "../../db/rows/impact";
export type { Span, CauseTotals, WindowRows, AckRow } from "../../db/rows/impact";

export const MINUTE = 60_000;
/** The longest window the panel offers and the default's cap (the default is min(time since the ack, 1 h)). */
export const IMPACT_MAX_WINDOW_MS = 60 * MINUTE;
/** Window lengths (minutes) the panel's selector offers besides the default. */
export const IMPACT_WINDOW_CHOICES = [5, 15, 30, 60] as const;

/**
 * The windows to compare for a version a target applied at `appliedAt` (Unix ms): `lengthMs` asked (null: the
 * default), `measuredMs` of it measured so far (now, or a later version taking effect, cuts the after-window short),
 * and the before-window of the same measured length so both cover equal time.
 */
export type ImpactWindows = {
  lengthMs: number;
  measuredMs: number;
  before: Span;
  after: Span;
  /** Why the after-window stops before lengthMs: still filling (now), or the next version took effect. */
  cut: "complete" | "filling" | "superseded";
};

/** Windows for a version applied at `appliedAt`; `nextAppliedAt` is when the next version took effect there (or null). */
export function impactWindows(
  appliedAt: number,
  now: number,
  lengthMs: number | null,
  nextAppliedAt: number | null = null,
): ImpactWindows {
  const since = Math.max(0, now - appliedAt);
  const length = lengthMs ?? Math.max(MINUTE, Math.min(since, IMPACT_MAX_WINDOW_MS));
  let end = appliedAt + length;
  let cut: ImpactWindows["cut"] = "complete";
  if (nextAppliedAt !== null && nextAppliedAt > appliedAt && nextAppliedAt < end) {
    end = nextAppliedAt;
    cut = "superseded";
  }
  if (now < end) {
    end = Math.max(appliedAt, now);
    cut = "filling";
  }
  const measured = end - appliedAt;
  return {
    lengthMs: length,
    measuredMs: measured,
    before: { from: appliedAt - measured, to: appliedAt },
    after: { from: appliedAt, to: end },
    cut,
  };
}

export type WindowMetrics = {
  requests: number;
  /** Token-weighted prefix hit rate (0–1); null without prompt tokens. */
  hitRate: number | null;
  ttftP50Ms: number | null;
  ttftP95Ms: number | null;
  recomputed: CauseTotals & { total: number };
  evictions: { reason: string; blocks: number }[];
  evictedBlocks: number;
};

/** The panel's and the guard's metrics of one window. */
export function windowMetrics(rows: WindowRows): WindowMetrics {
  const c = rows.causes;
  const evictions = [...rows.evictions].filter((e) => e.blocks > 0).sort((a, b) => b.blocks - a.blocks);
  return {
    requests: rows.requests,
    hitRate: hitRate(rows.cachedTokens, rows.inputTokens),
    ttftP50Ms: quantileSorted(rows.ttftsSorted, 0.5),
    ttftP95Ms: quantileSorted(rows.ttftsSorted, 0.95),
    recomputed: { ...c, total: c.cold + c.diverged + c.evicted + c.routedAway + c.unknown },
    evictions,
    evictedBlocks: evictions.reduce((s, e) => s + e.blocks, 0),
  };
}

export type TargetImpact =
  | { target: string; state: "rejected"; at: number; message: string | null }
  | {
      target: string;
      state: "measured";
      appliedAt: number;
      windows: ImpactWindows;
      before: WindowMetrics;
      after: WindowMetrics;
      /** Causes cover every request of the after-window (false: attribution has not judged them all yet). */
      causesComplete: boolean;
      /** Neither window saw a request. */
      noTraffic: boolean;
    };

/** One target's impact from its two windows' rows; oldestPendingAt is the oldest request attribution has not judged. */
export function targetImpact(
  target: string,
  appliedAt: number,
  windows: ImpactWindows,
  before: WindowRows,
  after: WindowRows,
  oldestPendingAt: number | null,
): TargetImpact {
  return {
    target,
    state: "measured",
    appliedAt,
    windows,
    before: windowMetrics(before),
    after: windowMetrics(after),
    causesComplete: oldestPendingAt === null || oldestPendingAt >= windows.after.to,
    noTraffic: before.requests === 0 && after.requests === 0,
  };
}

/**
 * Per target that acknowledged `version`: when it first applied it and when it first applied a later version (null:
 * not yet), from its policy.ack rows; a target that only refused it is reported with the refusal. Targets in name order.
 */
export function ackTimes(
  acks: readonly AckRow[],
  version: number,
): (
  | { target: string; state: "applied"; appliedAt: number; nextAppliedAt: number | null }
  | { target: string; state: "rejected"; at: number; message: string | null }
)[] {
  const byTarget = new Map<string, AckRow[]>();
  for (const a of acks) byTarget.set(a.target, [...(byTarget.get(a.target) ?? []), a]);
  const targets = [...byTarget.keys()].filter((t) => byTarget.get(t)!.some((a) => a.version === version));
  return targets.sort().map((target) => {
    const rows = byTarget.get(target)!;
    const applied = rows.filter((a) => a.version === version && a.status === "applied").sort((a, b) => a.ts - b.ts)[0];
    if (!applied) {
      const refused = rows.filter((a) => a.version === version).sort((a, b) => a.ts - b.ts)[0]!;
      return { target, state: "rejected" as const, at: refused.ts, message: refused.message };
    }
    const next = rows
      .filter((a) => a.version > version && a.status === "applied" && a.ts >= applied.ts)
      .sort((a, b) => a.ts - b.ts)[0];
    return { target, state: "applied" as const, appliedAt: applied.ts, nextAppliedAt: next?.ts ?? null };
  });
}
