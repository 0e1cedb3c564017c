// What a published policy version did: the same metrics over equal windows before and after a target applied it.
// Pure: the caller loads the rows and passes the time. No data is null (a gap), never 0.

import { hitRate } from "./overview";
import { quantileSorted } from "../../lib/quantile";
import { IMPACT_MAX_WINDOW_MS, MINUTE } from "../../lib/impact-window";
import type { Span, CauseTotals, WindowRows, AckRow } from "../../db/rows/impact";
export type { Span, CauseTotals, WindowRows, AckRow } from "../../db/rows/impact";

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

/**
 * A side of the comparison with fewer requests than this, or with less than MIN_SIDE_SHARE of the other side's
 * requests, is too thin to judge: its window held little traffic (the dashboard had just started, or traffic was
 * paused), and its figures would be read as a change the version made.
 */
export const MIN_SIDE_REQUESTS = 30;
export const MIN_SIDE_SHARE = 0.25;

/** Why each side is too thin to judge (null: it is not), from the two sides' request counts. */
export function thinSides(before: number, after: number): { before: string | null; after: string | null } {
  const why = (n: number, other: number) => {
    if (n < MIN_SIDE_REQUESTS) return `${n} requests, fewer than ${MIN_SIDE_REQUESTS}`;
    if (n < MIN_SIDE_SHARE * other)
      return `${n} requests, under a quarter of the other side's ${other}: its window held little traffic`;
    return null;
  };
  return { before: why(before, after), after: why(after, before) };
}

/** Figures of a window that compare across windows of unequal traffic. */
export type WindowRates = {
  /** Requests per minute of the measured window; null for an empty window. */
  requestsPerMinute: number | null;
  /** Recomputed prompt tokens per 1,000 prompt tokens; null without prompt tokens. */
  recomputedPer1kPrompt: number | null;
  /** Evicted blocks per request; null without requests. */
  evictedBlocksPerRequest: number | null;
};

export type WindowMetrics = {
  requests: number;
  /** Prompt tokens of the window's requests. */
  inputTokens: number;
  rates: WindowRates;
  /** Token-weighted prefix hit rate (0–1); null without prompt tokens. */
  hitRate: number | null;
  ttftP50Ms: number | null;
  ttftP95Ms: number | null;
  recomputed: CauseTotals & { total: number };
  evictions: { reason: string; blocks: number }[];
  evictedBlocks: number;
};

/** The panel's and the guard's metrics of one window of `measuredMs` (0: its rate per minute is not known). */
export function windowMetrics(rows: WindowRows, measuredMs = 0): WindowMetrics {
  const c = rows.causes;
  const evictions = [...rows.evictions].filter((e) => e.blocks > 0).sort((a, b) => b.blocks - a.blocks);
  const recomputed = c.cold + c.diverged + c.evicted + c.routedAway + c.unknown;
  const evictedBlocks = evictions.reduce((s, e) => s + e.blocks, 0);
  return {
    requests: rows.requests,
    inputTokens: rows.inputTokens,
    rates: {
      requestsPerMinute: measuredMs > 0 ? rows.requests / (measuredMs / MINUTE) : null,
      recomputedPer1kPrompt: rows.inputTokens > 0 ? (recomputed / rows.inputTokens) * 1000 : null,
      evictedBlocksPerRequest: rows.requests > 0 ? evictedBlocks / rows.requests : null,
    },
    hitRate: hitRate(rows.cachedTokens, rows.inputTokens),
    ttftP50Ms: quantileSorted(rows.ttftsSorted, 0.5),
    ttftP95Ms: quantileSorted(rows.ttftsSorted, 0.95),
    recomputed: { ...c, total: recomputed },
    evictions,
    evictedBlocks,
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
      /** Why a side is too thin to judge (thinSides), null where it is not. */
      thin: { before: string | null; after: string | null };
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
    before: windowMetrics(before, windows.measuredMs),
    after: windowMetrics(after, windows.measuredMs),
    causesComplete: oldestPendingAt === null || oldestPendingAt >= windows.after.to,
    noTraffic: before.requests === 0 && after.requests === 0,
    thin: thinSides(before.requests, after.requests),
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
