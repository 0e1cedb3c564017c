import {
  impactWindows,
  MIN_SIDE_REQUESTS,
  thinSides,
  windowMetrics,
  type ImpactWindows,
  type WindowRows,
} from "../analysis/impact";
import { MINUTE } from "../../lib/impact-window";
import type { GuardSpec } from "../../lib/policies/guard-input";

// Guarded rollout (opt-in per publish): after a version takes effect, compare the after-window with a before-window of
// equal length and roll back when TTFT p95 rose or the hit rate fell more than the operator allowed. Pure: the loop in
// guard-loop.ts loads the rows, asks for a decision here and persists it.

/** Requests each window needs before a check is judged; with fewer the guard says so and does not trip. */
export const MIN_GUARD_REQUESTS = MIN_SIDE_REQUESTS;

export type GuardState = "waiting" | "watching" | "passed" | "inconclusive" | "tripped" | "superseded";

/** Before → after of the guarded metrics; null where a window had too little traffic (or no prompt tokens). */
export type GuardDeltas = {
  ttftP95: { before: number | null; after: number | null; risePct: number | null };
  hitRate: { before: number | null; after: number | null; dropPoints: number | null };
  requests: { before: number; after: number };
};

export type GuardDecision = {
  state: Exclude<GuardState, "superseded">;
  /** One line for the panel and the audit log. */
  message: string;
  /** Set when tripped: what breached, e.g. "TTFT p95 +34%". */
  reason: string | null;
  deltas: GuardDeltas | null;
  measuredMs: number;
};

/** The windows to load for a guard on a version applied at `appliedAt`: up to windowMinutes after, equal before. */
export function guardWindows(spec: GuardSpec, appliedAt: number, now: number): ImpactWindows {
  return impactWindows(appliedAt, now, spec.windowMinutes * MINUTE);
}

const signed = (v: number, digits: number) => `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(digits)}`;
/** "3 of 10 min", or "25 s of 10 min" within the first minute. */
export const measuredOf = (ms: number, windowMinutes: number) =>
  `${ms < MINUTE ? `${Math.round(ms / 1000)} s` : Math.floor(ms / MINUTE)} of ${windowMinutes} min`;

/** TTFT p95's rise as "TTFT p95 +34%" and the hit rate's fall as "hit rate −7.2 points". */
export function describeTtftRise(risePct: number): string {
  return `TTFT p95 ${signed(risePct, 0)}%`;
}
export function describeHitDrop(dropPoints: number): string {
  return `hit rate ${signed(-dropPoints, 1)} points`;
}

function deltasOf(before: WindowRows, after: WindowRows): GuardDeltas {
  const b = windowMetrics(before);
  const a = windowMetrics(after);
  const enough = (n: number) => n >= MIN_GUARD_REQUESTS;
  // A side under a quarter of the other's traffic is not judged either (thinSides): its window held little traffic.
  const thin = thinSides(before.requests, after.requests);
  const even = thin.before === null && thin.after === null;
  const timed = even && enough(before.ttftsSorted.length) && enough(after.ttftsSorted.length);
  const counted = even && enough(before.requests) && enough(after.requests);
  const ttftRise =
    timed && b.ttftP95Ms !== null && a.ttftP95Ms !== null && b.ttftP95Ms > 0
      ? ((a.ttftP95Ms - b.ttftP95Ms) / b.ttftP95Ms) * 100
      : null;
  const hitDrop = counted && b.hitRate !== null && a.hitRate !== null ? (b.hitRate - a.hitRate) * 100 : null;
  return {
    ttftP95: { before: b.ttftP95Ms, after: a.ttftP95Ms, risePct: ttftRise },
    hitRate: { before: b.hitRate, after: a.hitRate, dropPoints: hitDrop },
    requests: { before: before.requests, after: after.requests },
  };
}

/**
 * Decide a guard at `now` for a version applied at `appliedAt` (null: no target applied it yet) from the rows of its
 * two windows (see guardWindows). Trips as soon as a judged check breaches its limit; passes when the window ends
 * with every set check judged; a check without MIN_GUARD_REQUESTS in both windows is not judged and never trips.
 */
export function decideGuard(
  spec: GuardSpec,
  appliedAt: number | null,
  before: WindowRows | null,
  after: WindowRows | null,
  now: number,
): GuardDecision {
  if (appliedAt === null || before === null || after === null)
    return {
      state: "waiting",
      message: "waiting for a target to apply this version",
      reason: null,
      deltas: null,
      measuredMs: 0,
    };
  const windows = guardWindows(spec, appliedAt, now);
  const of = measuredOf(windows.measuredMs, spec.windowMinutes);
  const d = deltasOf(before, after);
  const breaches: string[] = [];
  const limits: string[] = [];
  let unjudged = false;
  if (spec.ttftP95RisePct !== null) {
    const rise = d.ttftP95.risePct;
    if (rise === null) unjudged = true;
    else if (rise > spec.ttftP95RisePct) breaches.push(describeTtftRise(rise));
    else limits.push(`${describeTtftRise(rise)} (limit +${spec.ttftP95RisePct}%)`);
  }
  if (spec.hitRateDropPoints !== null) {
    const drop = d.hitRate.dropPoints;
    if (drop === null) unjudged = true;
    else if (drop > spec.hitRateDropPoints) breaches.push(describeHitDrop(drop));
    else limits.push(`${describeHitDrop(drop)} (limit −${spec.hitRateDropPoints})`);
  }
  const base = { deltas: d, measuredMs: windows.measuredMs };
  if (breaches.length > 0) {
    const reason = breaches.join(", ");
    return { ...base, state: "tripped", reason, message: `tripped after ${of}: ${reason}` };
  }
  const thin = thinSides(d.requests.before, d.requests.after);
  const uneven =
    d.requests.before >= MIN_GUARD_REQUESTS && d.requests.after >= MIN_GUARD_REQUESTS && (thin.before || thin.after);
  const traffic = uneven
    ? `too little traffic to judge (${d.requests.before} requests before, ${d.requests.after} after: one side under a quarter of the other's)`
    : `too little traffic to judge (${d.requests.before} requests before, ${d.requests.after} after; ${MIN_GUARD_REQUESTS} needed in each)`;
  const ended = windows.cut !== "filling";
  if (ended)
    return unjudged
      ? { ...base, state: "inconclusive", reason: null, message: `${traffic}: did not trip` }
      : {
          ...base,
          state: "passed",
          reason: null,
          message: `passed after ${spec.windowMinutes} min: ${limits.join(", ")}`,
        };
  return {
    ...base,
    state: "watching",
    reason: null,
    message: `${of} measured: ${[...limits, ...(unjudged ? [traffic] : [])].join("; ")}`,
  };
}
