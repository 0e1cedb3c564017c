import type { Db } from "../../db/client";
import { latestVersionNumbers } from "../../db/queries/control";
import { openGuards, type GuardRow } from "../../db/queries/guards";
import { saveGuardState, tripGuard } from "./guard-store";
import { acksFrom, windowRows } from "../../db/queries/impact";
import { ackTimes } from "../analysis/impact";
import { errorMessage, log } from "../observability/logger";
import { decideGuard, guardWindows, type GuardSpec } from "./guard";

// Evaluates every open guard: loads its rows, asks guard.ts for a decision and stores it (rolling back on a trip).
// Started by the dashboard beside the reconciler; the reconciler then pushes the rollback version like any other.

export type GuardOutcome = { kind: string; version: number; state: string; rollbackVersion: number | null };

/** When a version first took effect anywhere: the earliest applied policy.ack of any target (null: none yet). */
function firstAppliedAt(db: Db, kind: string, version: number): number | null {
  const applied = ackTimes(acksFrom(db, kind, version), version).flatMap((a) =>
    a.state === "applied" ? [a.appliedAt] : [],
  );
  return applied.length ? Math.min(...applied) : null;
}

function evaluateOne(db: Db, guard: GuardRow, latest: number | undefined, now: number): GuardOutcome {
  const out = (state: string, rollbackVersion: number | null = null) => ({
    kind: guard.kind,
    version: guard.version,
    state,
    rollbackVersion,
  });
  if (latest !== guard.version) {
    saveGuardState(db, guard, "superseded", { message: `v${latest} was published before the guard finished` }, now);
    return out("superseded");
  }
  const spec: GuardSpec = {
    ttftP95RisePct: guard.ttftP95RisePct,
    hitRateDropPoints: guard.hitRateDropPoints,
    windowMinutes: guard.windowMinutes,
  };
  const appliedAt = firstAppliedAt(db, guard.kind, guard.version);
  if (appliedAt === null) {
    const d = decideGuard(spec, null, null, null, now);
    saveGuardState(db, guard, d.state, { message: d.message }, now);
    return out(d.state);
  }
  const windows = guardWindows(spec, appliedAt, now);
  const d = decideGuard(spec, appliedAt, windowRows(db, windows.before), windowRows(db, windows.after), now);
  if (d.state === "tripped") return out("tripped", tripGuard(db, guard, d, appliedAt, now));
  saveGuardState(db, guard, d.state, { message: d.message, appliedAt, detail: d.deltas }, now);
  return out(d.state);
}

/** One pass over the open guards at `now`; a guard that fails is logged and retried on the next pass. */
export function evaluateGuards(db: Db, now: number): GuardOutcome[] {
  const latest = latestVersionNumbers(db);
  const outcomes: GuardOutcome[] = [];
  for (const guard of openGuards(db)) {
    try {
      outcomes.push(evaluateOne(db, guard, latest[guard.kind], now));
    } catch (err) {
      log().error({ err: errorMessage(err), kind: guard.kind, version: guard.version }, "guard evaluation failed");
    }
  }
  for (const o of outcomes)
    if (o.state === "tripped")
      log().warn(o, `guard tripped: ${o.kind} v${o.version} rolled back as v${o.rollbackVersion ?? "?"}`);
  return outcomes;
}

/** Run evaluateGuards now and every intervalMs; returns a stop function. */
export function startGuardLoop(db: Db, intervalMs: number, now: () => number = Date.now): () => void {
  const tick = () => {
    try {
      evaluateGuards(db, now());
    } catch (err) {
      log().error({ err: errorMessage(err) }, "guard pass failed");
    }
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
