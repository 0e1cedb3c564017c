import type { Span, WindowRows } from "../../db/rows/impact";
import { policyRequestScope, type RequestScope } from "../../db/store/scope";
import { latestVersionNumbers } from "../../db/store/control";
import { acksFrom, openGuards, type GuardRow } from "../../db/store/guards";
import type { Store } from "../../db/store/store";
import { saveGuardState, tripGuard } from "./guard-records";
import { ackTimes } from "../analysis/impact";
import { errorMessage, log } from "../observability/logger";
import { startPasses } from "./passes";
import type { GuardSpec } from "../../lib/policies/guard-input";
import { decideGuard, guardWindows } from "./guard";

// Evaluates every open guard: loads its rows, asks guard.ts for a decision and stores it (rolling back on a trip).
// Started by the leader beside the reconciler; the reconciler then pushes the rollback version like any other.

export type GuardOutcome = { kind: string; version: number; state: string; rollbackVersion: number | null };

/**
 * What a guard measures over a window of one policy scope's requests (db/store/impact.ts's windowRows, either engine).
 */
export type WindowReader = (span: Span, scope: RequestScope) => WindowRows | Promise<WindowRows>;

/**
 * When a cluster's version first took effect: the earliest applied policy.ack of any of that cluster's targets (null:
 * none yet).
 */
async function firstAppliedAt(s: Store, cluster: string, kind: string, version: number): Promise<number | null> {
  const applied = ackTimes(await acksFrom(s, cluster, kind, version), version).flatMap((a) =>
    a.state === "applied" ? [a.appliedAt] : [],
  );
  return applied.length ? Math.min(...applied) : null;
}

async function evaluateOne(
  s: Store,
  readWindow: WindowReader,
  guard: GuardRow,
  latest: number | undefined,
  now: number,
): Promise<GuardOutcome> {
  const out = (state: string, rollbackVersion: number | null = null) => ({
    kind: guard.kind,
    version: guard.version,
    state,
    rollbackVersion,
  });
  if (latest !== guard.version) {
    const message = `v${latest} was published before the guard finished`;
    await saveGuardState(s, guard, "superseded", { message }, now);
    return out("superseded");
  }
  const spec: GuardSpec = {
    ttftP95RisePct: guard.ttftP95RisePct,
    hitRateDropPoints: guard.hitRateDropPoints,
    windowMinutes: guard.windowMinutes,
  };
  const appliedAt = await firstAppliedAt(s, guard.cluster, guard.kind, guard.version);
  if (appliedAt === null) {
    const d = decideGuard(spec, null, null, null, now);
    await saveGuardState(s, guard, d.state, { message: d.message }, now);
    return out(d.state);
  }
  const windows = guardWindows(spec, appliedAt, now);
  const id = policyRequestScope(guard.cluster);
  const d = decideGuard(
    spec,
    appliedAt,
    await readWindow(windows.before, id),
    await readWindow(windows.after, id),
    now,
  );
  if (d.state === "tripped") return out("tripped", await tripGuard(s, guard, d, appliedAt, now));
  await saveGuardState(s, guard, d.state, { message: d.message, appliedAt, detail: d.deltas }, now);
  return out(d.state);
}

/** One pass over the open guards at `now`; a guard that fails is logged and retried on the next pass. */
export async function evaluateGuards(s: Store, readWindow: WindowReader, now: number): Promise<GuardOutcome[]> {
  const latest = await latestVersionNumbers(s);
  const outcomes: GuardOutcome[] = [];
  for (const guard of await openGuards(s)) {
    try {
      outcomes.push(await evaluateOne(s, readWindow, guard, latest.get(guard.cluster)?.[guard.kind], now));
    } catch (err) {
      log().error({ err: errorMessage(err), kind: guard.kind, version: guard.version }, "guard evaluation failed");
    }
  }
  for (const o of outcomes)
    if (o.state === "tripped")
      log().warn(o, `guard tripped: ${o.kind} v${o.version} rolled back as v${o.rollbackVersion ?? "?"}`);
  return outcomes;
}

/** Run evaluateGuards now and intervalMs after each pass ends; returns a stop function. */
export function startGuardLoop(
  s: Store,
  readWindow: WindowReader,
  intervalMs: number,
  now: () => number = Date.now,
): () => Promise<void> {
  return startPasses("guard", () => evaluateGuards(s, readWindow, now()), intervalMs);
}
