// Worker views from plain rows: lifecycle state in a range, routing share, series buckets, lost decisions. Pure.
import { counterDelta, type CounterSample } from "../../lib/counters";
import { hitRate } from "./overview";
import { RAW_MAX_SPAN_MS, seriesSource } from "../../lib/series-source";
import type { LifecycleKind, SeriesRow, RawBucket, DecisionRow } from "../../db/rows/workers";
import type { WorkerColumns } from "../../db/store/worker-columns";
export type { LifecycleKind, SeriesRow, RawBucket, DecisionRow } from "../../db/rows/workers";
export { RAW_MAX_SPAN_MS, seriesSource };

/** A worker without a report in the last minute of the range is stale. */
export const STALE_MS = 60_000;
/** Charts aim for at most this many buckets. */
export const MAX_BUCKETS = 120;

const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const STEPS = [1, 2, 5, 10, 15, 30]
  .map((s) => s * SECOND)
  .concat(
    [1, 2, 5, 10, 15, 30].map((m) => m * MINUTE),
    [1, 2, 3, 6, 12, 24].map((h) => h * HOUR),
  );

/** The smallest step from a fixed ladder (1 s … 1 d) that splits the span into ≤ MAX_BUCKETS buckets. */
export function bucketStep(spanMs: number): number {
  return STEPS.find((s) => spanMs / s <= MAX_BUCKETS) ?? STEPS[STEPS.length - 1]!;
}

export type LifecycleEvent = { kind: LifecycleKind; ts: number };
export type WorkerState = "up" | "down" | "stale";
export type StateInRange = { state: WorkerState; joined: boolean; left: boolean };

/**
 * A worker's state at the end of [from, to] and whether it joined or left inside the range.
 * `inRange`: its worker.up/down events with from ≤ ts ≤ to; `before`: its latest one before from (or null).
 * Joined: an up event in range, or first telemetry ever in range. Left: a down event in range.
 * Down: the latest lifecycle event is a down with no sample after it. Stale: nothing heard in the range's last minute.
 */
export function workerState(input: {
  inRange: readonly LifecycleEvent[];
  before: LifecycleEvent | null;
  firstSeen: number;
  lastSampleTs: number | null;
  from: number;
  to: number;
}): StateInRange {
  const { inRange, before, firstSeen, lastSampleTs, from, to } = input;
  const joined = inRange.some((e) => e.kind === "worker.up") || (firstSeen >= from && firstSeen <= to);
  const left = inRange.some((e) => e.kind === "worker.down");
  let last = before;
  for (const e of inRange) if (!last || e.ts >= last.ts) last = e;
  if (last?.kind === "worker.down" && (lastSampleTs === null || lastSampleTs <= last.ts))
    return { state: "down", joined, left };
  const heard = Math.max(lastSampleTs ?? -Infinity, last?.kind === "worker.up" ? last.ts : -Infinity);
  return { state: heard >= to - STALE_MS ? "up" : "stale", joined, left };
}

/** Share of the range's routing decisions a worker won; null when there were none. */
export function routingShare(won: number, total: number): number | null {
  return total > 0 ? won / total : null;
}

/** KV utilization of one sample or bucket: active over total blocks; null without capacity. */
export function utilization(active: number, total: number): number | null {
  return total > 0 ? active / total : null;
}

/**
 * Bucket sums from raw samples: counter deltas between each bucket's last sample and the previous one of the same
 * worker (its previous bucket, or `baselines` for the first), attributed to the later bucket as ingest does.
 * A restart inside a bucket counts only what the worker counted since. Rows ordered by worker then time.
 */
export function bucketDeltas(rows: readonly RawBucket[], baselines: ReadonlyMap<string, CounterSample>): SeriesRow[] {
  let prev: CounterSample | undefined;
  let worker: string | null = null;
  return rows.map((r) => {
    if (r.workerId !== worker) {
      worker = r.workerId;
      prev = baselines.get(r.workerId);
    }
    const next = { ts: r.lastTs, query: r.lastQuery, hit: r.lastHit };
    const d = counterDelta(prev, next);
    prev = next;
    return {
      workerId: r.workerId,
      t: r.t,
      samples: r.samples,
      kvActive: r.kvActive,
      kvTotal: r.kvTotal,
      query: d?.query ?? 0,
      hit: d?.hit ?? 0,
    };
  });
}

/**
 * One worker's chart buckets as columns, in time order: `t` the bucket starts (buckets without data are absent; the
 * chart layer turns them into gaps), `util` KV utilization (null without capacity), `hitRate` token-weighted prefix
 * hit rate (null where nothing was queried).
 */
export type WorkerSeries = WorkerColumns;

/** Workers sorted in place by id as the charts list them (locale order). */
export function byWorkerId<W extends { workerId: string }>(series: W[]): W[] {
  return series.sort((a, b) => a.workerId.localeCompare(b.workerId));
}

/** Per-worker columns from bucket sums (rows in any order): workers by id, each worker's buckets by time. */
export function columnsOfRows(rows: readonly SeriesRow[]): WorkerSeries[] {
  const byWorker = new Map<string, SeriesRow[]>();
  for (const r of rows) {
    let list = byWorker.get(r.workerId);
    if (!list) byWorker.set(r.workerId, (list = []));
    list.push(r);
  }
  return byWorkerId(
    [...byWorker.entries()].map(([workerId, list]) => {
      list.sort((a, b) => a.t - b.t);
      return {
        workerId,
        t: list.map((r) => r.t),
        util: list.map((r) => utilization(r.kvActive, r.kvTotal)),
        hitRate: list.map((r) => hitRate(r.hit, r.query)),
      };
    }),
  );
}

/**
 * The part of [from, to) in which a worker could have been a routing candidate: from its first report to a minute
 * after its last. Bounded scans of decisions then cover its lifetime, not the latest decisions made without it.
 * An empty window is returned as from = to.
 */
export function candidacyWindow(
  w: { firstSeen: number; lastSeen: number },
  from: number,
  to: number,
): { from: number; to: number } {
  const start = Math.max(from, w.firstSeen);
  const end = Math.min(to, w.lastSeen + STALE_MS);
  return end > start ? { from: start, to: end } : { from: start, to: start };
}

export type Candidate = {
  worker_id: string;
  overlap_blocks: number;
  prefill_blocks: number;
  decode_blocks: number;
  cost: number;
};
export type LostDecision = {
  ts: number;
  requestId: string;
  winnerId: string;
  overlap: number;
  cost: number;
  winnerOverlap: number | null;
  winnerCost: number | null;
};

/** Decisions where `workerId` was a candidate but another worker was chosen, with both sides' overlap and cost. */
export function lostDecisions(rows: readonly DecisionRow[], workerId: string): LostDecision[] {
  const out: LostDecision[] = [];
  for (const r of rows) {
    if (r.chosenWorkerId === workerId) continue;
    const cands = JSON.parse(r.candidates) as Candidate[];
    const mine = cands.find((c) => c.worker_id === workerId);
    if (!mine) continue;
    const winner = cands.find((c) => c.worker_id === r.chosenWorkerId);
    out.push({
      ts: r.ts,
      requestId: r.requestId,
      winnerId: r.chosenWorkerId,
      overlap: mine.overlap_blocks,
      cost: mine.cost,
      winnerOverlap: winner?.overlap_blocks ?? null,
      winnerCost: winner?.cost ?? null,
    });
  }
  return out;
}

export type WorkerRowInput = {
  workers: readonly { workerId: string; role: string | null; firstSeen: number; lastSeen: number }[];
  lifecycle: readonly ({ workerId: string } & LifecycleEvent)[];
  before: readonly ({ workerId: string } & LifecycleEvent)[];
  latest: readonly {
    workerId: string;
    ts: number;
    kvActive: number;
    kvTotal: number;
    running: number;
    waiting: number;
  }[];
  prefix: readonly { workerId: string; query: number; hit: number }[];
  won: ReadonlyMap<string, number>;
  decisions: number;
  from: number;
  to: number;
};

export type WorkerRow = StateInRange & {
  workerId: string;
  role: string | null;
  kvUtilization: number | null;
  hitRate: number | null;
  queryTokens: number;
  running: number | null;
  waiting: number | null;
  routingShare: number | null;
  won: number;
  lastSeen: number | null;
};

/** The last time a worker was heard from up to `to`: its overall last-seen when that is not after `to`, else its latest sample or event in range. */
export function lastHeard(
  lastSeen: number,
  lastSampleTs: number | null,
  lastEventTs: number | null,
  to: number,
): number | null {
  if (lastSeen <= to) return lastSeen;
  const heard = Math.max(lastSampleTs ?? -Infinity, lastEventTs ?? -Infinity);
  return Number.isFinite(heard) ? heard : null;
}

/** One table row per worker: state in range, latest gauges, token-weighted hit rate and routing share over the range. */
export function workerRows(input: WorkerRowInput): WorkerRow[] {
  const { from, to } = input;
  const latest = new Map(input.latest.map((s) => [s.workerId, s]));
  const prefix = new Map(input.prefix.map((p) => [p.workerId, p]));
  const before = new Map(input.before.map((e) => [e.workerId, e]));
  const inRange = new Map<string, LifecycleEvent[]>();
  for (const e of input.lifecycle) {
    const list = inRange.get(e.workerId) ?? [];
    list.push(e);
    inRange.set(e.workerId, list);
  }
  return input.workers.map((w) => {
    const s = latest.get(w.workerId);
    const p = prefix.get(w.workerId);
    const events = inRange.get(w.workerId) ?? [];
    const won = input.won.get(w.workerId) ?? 0;
    const lastEvent = events.length ? Math.max(...events.map((e) => e.ts)) : null;
    return {
      workerId: w.workerId,
      role: w.role,
      ...workerState({
        inRange: events,
        before: before.get(w.workerId) ?? null,
        firstSeen: w.firstSeen,
        lastSampleTs: s?.ts ?? null,
        from,
        to,
      }),
      kvUtilization: s ? utilization(s.kvActive, s.kvTotal) : null,
      hitRate: p ? hitRate(p.hit, p.query) : null,
      queryTokens: p?.query ?? 0,
      running: s?.running ?? null,
      waiting: s?.waiting ?? null,
      routingShare: routingShare(won, input.decisions),
      won,
      lastSeen: lastHeard(w.lastSeen, s?.ts ?? null, lastEvent, to),
    };
  });
}
