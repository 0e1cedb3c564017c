import "server-only";
import type { Store } from "../../db/store/store";
import { decisionTallies } from "../../db/store/decision-tallies";
import { decisionsLost, removalsByReason, requestsServed } from "../../db/store/worker-activity";
import {
  latestSamples,
  lifecycleBefore,
  lifecycleInRange,
  prefixByWorker,
  workerById,
  workersInRange,
  type WorkerInfo,
} from "../../db/store/workers";
import { spanRollup } from "../analysis/resolution";
import { candidacyWindow, lostDecisions, workerRows } from "../analysis/workers";
import { AppError } from "../errors";
import { decodeByWorker, decodeStats } from "./decode";
import { inScope, isWholeFleet, type Scope } from "../../lib/scope";

// The workers page's reads over the store (either engine): the table rows and one worker's detail.

/** Table rows for the workers in [from, to] (of the scope), or for one worker. */
async function rowsFor(s: Store, from: number, to: number, one?: WorkerInfo, scope: Scope = {}) {
  const workers = one ? [one] : await scopedWorkers(s, from, to, scope);
  const ids = workers.map((w) => w.workerId);
  const [lifecycle, before, latest, prefix, decisions] = await Promise.all([
    lifecycleInRange(s, from, to, one?.workerId),
    lifecycleBefore(s, from, one?.workerId),
    latestSamples(s, ids, from, to),
    prefixByWorker(s, spanRollup(to - from), from, to, one?.workerId),
    decisionTallies(s, ids, from, to),
  ]);
  return workerRows({
    workers,
    lifecycle,
    before,
    latest,
    prefix,
    won: decisions.won,
    decisions: decisions.total,
    from,
    to,
  });
}

/** The workers with telemetry in [from, to] that are in the scope. */
export async function scopedWorkers(s: Store, from: number, to: number, scope: Scope): Promise<WorkerInfo[]> {
  const all = await workersInRange(s, from, to);
  return isWholeFleet(scope) ? all : all.filter((w) => inScope(w.workerId, w.model, scope));
}

/** One row per worker with telemetry in [from, to], with its decode columns. */
export async function workerTable(s: Store, from: number, to: number, scope: Scope = {}) {
  const [rows, decode] = await Promise.all([rowsFor(s, from, to, undefined, scope), decodeByWorker(s, from, to)]);
  return rows.map((w) => ({ ...w, decode: decode.get(w.workerId) ?? null }));
}

/** One worker over [from, to]: state, gauges, requests served, routing decisions won and lost, evictions, decode. */
export async function workerDetail(s: Store, id: string, from: number, to: number) {
  const info = await workerById(s, id);
  if (!info) throw new AppError("NOT_FOUND", `no worker "${id}" has reported`);
  const window = candidacyWindow(info, from, to);
  const [lost, summary, served, removals, decode, mine] = await Promise.all([
    decisionsLost(s, info.workerId, window.from, window.to),
    rowsFor(s, from, to, info),
    requestsServed(s, info.workerId, from, to),
    removalsByReason(s, info.workerId, from, to),
    decodeStats(s, from, to, info.workerId),
    decodeByWorker(s, from, to, info.workerId),
  ]);
  const own = mine.get(info.workerId);
  return {
    info,
    summary: summary[0]!,
    requestsServed: served,
    lost: {
      count: lost.lost,
      scanned: lost.scanned,
      truncated: lost.truncated,
      recent: lostDecisions(lost.recent, info.workerId),
    },
    removals,
    decode: { ...decode, preemptions: own?.preemptions ?? 0, batchTokens: own?.batchTokens ?? null },
  };
}
