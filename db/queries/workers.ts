import type { Statement } from "better-sqlite3";
import type { Db } from "../client";
import { candidatesJson } from "../candidate-codec";
import { rollupLevel } from "./rollups";
import { minuteOf, type CounterSample } from "../../lib/counters";
import type { DecisionRow, LifecycleKind, RawBucket, SeriesRow, StatsResolution } from "../rows/workers";

// Reads for the worker views. Every query takes a time range [from, to) (Unix ms) and is bounded.

export const MAX_WORKERS = 500;
const MAX_LIFECYCLE = 5_000;

export type WorkerInfo = {
  workerId: string;
  role: string | null;
  model: string | null;
  blockSize: number | null;
  kvTotalBlocks: number | null;
  firstSeen: number;
  lastSeen: number;
  downReason: string | null;
};
export type LifecycleRow = { workerId: string; kind: LifecycleKind; ts: number };
export type LatestSample = {
  workerId: string;
  ts: number;
  kvActive: number;
  kvTotal: number;
  running: number;
  waiting: number;
};
export type PrefixTotals = { workerId: string; query: number; hit: number };

const infoCols = `worker_id AS workerId, role, model, block_size AS blockSize, kv_total_blocks AS kvTotalBlocks,
  first_seen AS firstSeen, last_seen AS lastSeen, down_reason AS downReason`;

/** Workers with any telemetry overlapping [from, to], by id, at most `limit`. */
export function workersInRange(db: Db, from: number, to: number, limit = MAX_WORKERS): WorkerInfo[] {
  return db.$client
    .prepare(`SELECT ${infoCols} FROM workers WHERE first_seen <= ? AND last_seen >= ? ORDER BY worker_id LIMIT ?`)
    .all(to, from, limit) as WorkerInfo[];
}

/** One worker's identity row, or undefined when it was never seen. */
export function workerById(db: Db, workerId: string): WorkerInfo | undefined {
  return db.$client.prepare(`SELECT ${infoCols} FROM workers WHERE worker_id = ?`).get(workerId) as
    WorkerInfo | undefined;
}

/** worker.up/down events with from ≤ ts ≤ to, newest first, the latest MAX_LIFECYCLE (optionally of one worker). */
export function lifecycleInRange(db: Db, from: number, to: number, workerId?: string): LifecycleRow[] {
  const one = workerId === undefined ? "" : "AND worker_id = @workerId";
  return db.$client
    .prepare(
      `SELECT worker_id AS workerId, kind, ts FROM worker_events WHERE ts >= @from AND ts <= @to ${one} ORDER BY ts DESC LIMIT ${MAX_LIFECYCLE}`,
    )
    .all({ from, to, workerId }) as LifecycleRow[];
}

/** Each worker's latest worker.up/down event before `from` (optionally of one worker). */
export function lifecycleBefore(db: Db, from: number, workerId?: string): LifecycleRow[] {
  const one = workerId === undefined ? "" : "AND worker_id = @workerId";
  return db.$client
    .prepare(
      `SELECT worker_id AS workerId, kind, max(ts) AS ts FROM worker_events WHERE ts < @from ${one} GROUP BY worker_id LIMIT ${MAX_WORKERS * 4}`,
    )
    .all({ from, workerId }) as LifecycleRow[];
}

/**
 * Each worker's latest sample with from ≤ ts ≤ to. Where raw samples have aged out, the latest
 * per-minute rollup in range stands in (its means, timestamped at its minute).
 */
export function latestSamples(db: Db, workerIds: readonly string[], from: number, to: number): LatestSample[] {
  const raw = db.$client.prepare(
    `SELECT ts, kv_active_blocks AS kvActive, kv_total_blocks AS kvTotal, requests_running AS running, requests_waiting AS waiting
     FROM worker_stats WHERE worker_id = ? AND ts >= ? AND ts <= ? ORDER BY ts DESC LIMIT 1`,
  );
  const rollup = db.$client.prepare(
    `SELECT minute AS ts, kv_active_sum * 1.0 / samples AS kvActive, kv_total_sum * 1.0 / samples AS kvTotal,
       running_sum * 1.0 / samples AS running, waiting_sum * 1.0 / samples AS waiting
     FROM worker_stats_1m WHERE worker_id = ? AND minute >= ? AND minute <= ? ORDER BY minute DESC LIMIT 1`,
  );
  const out: LatestSample[] = [];
  for (const workerId of workerIds.slice(0, MAX_WORKERS)) {
    const s = (raw.get(workerId, from, to) ?? rollup.get(workerId, minuteOf(from), to)) as
      Omit<LatestSample, "workerId"> | undefined;
    if (s) out.push({ workerId, ...s });
  }
  return out;
}

/** Prefix tokens queried and hit per worker, from the rollups of the minutes overlapping [from, to). */
export function prefixByWorker(db: Db, from: number, to: number, workerId?: string): PrefixTotals[] {
  const level = rollupLevel(to - from);
  // All workers: the minute index keeps the scan to the range (grouping would otherwise walk the whole primary key).
  const sql = `SELECT worker_id AS workerId, sum(prefix_query_delta) AS query, sum(prefix_hit_delta) AS hit
    FROM ${level.stats} ${workerId === undefined ? `INDEXED BY ${level.statsMinuteIndex}` : ""}
    WHERE minute >= @fromMinute AND minute < @to ${workerId === undefined ? "" : "AND worker_id = @workerId"}
    GROUP BY worker_id ORDER BY worker_id LIMIT ${MAX_WORKERS * 4}`;
  return db.$client.prepare(sql).all({ fromMinute: from - (from % level.align), to, workerId }) as PrefixTotals[];
}

/** route.decision rows in [from, to). */
export function decisionCount(db: Db, from: number, to: number): number {
  return db.$client
    .prepare("SELECT count(*) FROM route_decisions WHERE ts >= ? AND ts < ?")
    .pluck()
    .get(from, to) as number;
}

/** Decisions in [from, to) each worker won (was chosen for), keyed by worker id. */
export function decisionsWon(db: Db, workerIds: readonly string[], from: number, to: number): Map<string, number> {
  const stmt = db.$client
    .prepare("SELECT count(*) FROM route_decisions WHERE chosen_worker_id = ? AND ts >= ? AND ts < ?")
    .pluck();
  return new Map(workerIds.slice(0, MAX_WORKERS).map((w) => [w, stmt.get(w, from, to) as number]));
}

/** Requests in [from, to) that a worker served. */
export function requestsServed(db: Db, workerId: string, from: number, to: number): number {
  return db.$client
    .prepare("SELECT count(*) FROM requests WHERE worker_id = ? AND arrived_at >= ? AND arrived_at < ?")
    .pluck()
    .get(workerId, from, to) as number;
}

export type LostScan = { scanned: number; lost: number; truncated: boolean; recent: DecisionRow[] };

/**
 * Among the latest `scanLimit` decisions in [from, to): how many the worker lost (a candidate, not chosen),
 * and the most recent `recentLimit` of those rows. `truncated` when the range held more decisions than scanned.
 */
export function decisionsLost(
  db: Db,
  workerId: string,
  from: number,
  to: number,
  scanLimit = 10_000,
  recentLimit = 20,
): LostScan {
  const needle = `"worker_id":${JSON.stringify(workerId)}`;
  const compactNeedle = `;${workerId},`;
  const scanned = db.$client
    .prepare("SELECT count(*) FROM (SELECT 1 FROM route_decisions WHERE ts >= ? AND ts < ? LIMIT ?)")
    .pluck()
    .get(from, to, scanLimit + 1) as number;
  const rows = db.$client
    .prepare(
      `SELECT ts, request_id AS requestId, chosen_worker_id AS chosenWorkerId, candidates, count(*) OVER () AS lost
       FROM (SELECT ts, request_id, chosen_worker_id, candidates FROM route_decisions WHERE ts >= @from AND ts < @to ORDER BY ts DESC LIMIT @scanLimit)
       WHERE chosen_worker_id <> @workerId
         AND CASE WHEN substr(candidates, 1, 1) = '[' THEN instr(candidates, @needle) ELSE instr(';' || candidates, @compactNeedle) END > 0
       ORDER BY ts DESC LIMIT @recentLimit`,
    )
    .all({ from, to, scanLimit, workerId, needle, compactNeedle, recentLimit }) as (DecisionRow & { lost: number })[];
  return {
    scanned: Math.min(scanned, scanLimit),
    lost: rows[0]?.lost ?? 0,
    truncated: scanned > scanLimit,
    recent: rows.map(({ lost: _, candidates, ...r }) => ({ ...r, candidates: candidatesJson(candidates) })),
  };
}

/** Blocks and events removed from a worker's cache in [from, to) per reason (kv.cleared counts as "cleared"). */
export function removalsByReason(
  db: Db,
  workerId: string,
  from: number,
  to: number,
): { reason: string; blocks: number; events: number }[] {
  return db.$client
    .prepare(
      `SELECT coalesce(reason, 'unknown') AS reason, sum(block_count) AS blocks, count(*) AS events FROM kv_events
       WHERE worker_id = ? AND ts >= ? AND ts < ? AND op IN ('removed', 'cleared') GROUP BY 1 ORDER BY 2 DESC, 3 DESC, 1 LIMIT 50`,
    )
    .all(workerId, from, to) as { reason: string; blocks: number; events: number }[];
}

/** Blocks a worker stored in [from, to) per bucket of `step` ms and retention class (null: not reported). */
export function storedByClass(
  db: Db,
  workerId: string,
  from: number,
  to: number,
  step: number,
): { t: number; retentionClass: string | null; blocks: number }[] {
  return db.$client
    .prepare(
      `SELECT (ts - ts % @step) AS t, retention_class AS retentionClass, sum(block_count) AS blocks FROM kv_events
       WHERE worker_id = @workerId AND ts >= @from AND ts < @to AND op = 'stored' GROUP BY 1, 2 ORDER BY 1 LIMIT 5000`,
    )
    .all({ workerId, from, to, step }) as { t: number; retentionClass: string | null; blocks: number }[];
}

/** Run a per-chunk statement for each chunk [a, b) of `step` ms covering [start, to) and tag its rows with the chunk start. */
function perChunk<R>(
  stmt: Statement,
  start: number,
  to: number,
  step: number,
  params: Record<string, unknown>,
): (R & { t: number })[] {
  const out: (R & { t: number })[] = [];
  for (let t = start - (start % step); t < to; t += step) {
    for (const r of stmt.all({ ...params, a: Math.max(t, start), b: Math.min(t + step, to) }) as R[])
      out.push({ ...r, t });
  }
  return out;
}

// Across all workers, one grouped query per bucket is cheaper than one over the range: the time index keeps each scan to
// its bucket and SQLite sorts many small groups faster than one large one. One worker: a single query on its index.
const rawLast = `count(*) AS samples, sum(kv_active_blocks) AS kvActive, sum(kv_total_blocks) AS kvTotal,
  max(ts) AS lastTs, prefix_query_tokens AS lastQuery, prefix_hit_tokens AS lastHit`;
const rollupSums = `sum(samples) AS samples, sum(kv_active_sum) AS kvActive, sum(kv_total_sum) AS kvTotal,
  sum(prefix_query_delta) AS query, sum(prefix_hit_delta) AS hit`;

/**
 * Raw samples in [from, to) bucketed by `step` ms (epoch-aligned): gauge sums and each bucket's last counter sample,
 * ordered by worker and time, plus each worker's last sample before `from` as the baseline for the first delta.
 */
export function rawBuckets(
  db: Db,
  opts: { from: number; to: number; step: number; workerId?: string },
): { rows: RawBucket[]; baselines: Map<string, CounterSample> } {
  const { from, to, step, workerId } = opts;
  const rows =
    workerId === undefined
      ? perChunk<RawBucket>(
          db.$client.prepare(
            `SELECT worker_id AS workerId, ${rawLast} FROM worker_stats INDEXED BY worker_stats_ts WHERE ts >= @a AND ts < @b GROUP BY worker_id LIMIT ${MAX_WORKERS * 4}`,
          ),
          from,
          to,
          step,
          {},
        ).sort((x, y) => (x.workerId === y.workerId ? x.t - y.t : x.workerId < y.workerId ? -1 : 1))
      : (db.$client
          .prepare(
            `SELECT worker_id AS workerId, ts - ts % @step AS t, ${rawLast} FROM worker_stats WHERE worker_id = @workerId AND ts >= @from AND ts < @to GROUP BY t ORDER BY t`,
          )
          .all({ from, to, step, workerId }) as RawBucket[]);
  const before = db.$client.prepare(
    "SELECT ts, prefix_query_tokens AS query, prefix_hit_tokens AS hit FROM worker_stats WHERE worker_id = ? AND ts < ? ORDER BY ts DESC LIMIT 1",
  );
  const baselines = new Map<string, CounterSample>();
  for (const w of new Set(rows.map((r) => r.workerId))) {
    const b = before.get(w, from) as CounterSample | undefined;
    if (b) baselines.set(w, b);
  }
  return { rows, baselines };
}

/** A stored rollup of worker stats. */
export type RollupResolution = Exclude<StatsResolution, "raw">;
const STATS_TABLES: Record<RollupResolution, { table: string; minuteIndex: string; align: number }> = {
  "10s": { table: "worker_stats_10s", minuteIndex: "worker_stats_10s_minute", align: 10_000 },
  "30s": { table: "worker_stats_30s", minuteIndex: "worker_stats_30s_minute", align: 30_000 },
  "1m": { table: "worker_stats_1m", minuteIndex: "worker_stats_1m_minute", align: 60_000 },
  "5m": { table: "worker_stats_5m", minuteIndex: "worker_stats_5m_minute", align: 300_000 },
  "15m": { table: "worker_stats_15m", minuteIndex: "worker_stats_15m_minute", align: 900_000 },
};

/** The earliest 10-second rollup bucket and raw sample stored (null: none), for choosing what a short range reads. */
export function statsCoverage(db: Db): { oldest10s: number | null; oldestRaw: number | null } {
  const oldest10s = db.$client.prepare("SELECT min(minute) FROM worker_stats_10s").pluck().get() as number | null;
  const oldestRaw = db.$client.prepare("SELECT min(ts) FROM worker_stats").pluck().get() as number | null;
  return { oldest10s, oldestRaw };
}

/**
 * Rollup rows of the buckets overlapping [from, to), summed per worker and bucket of `step` ms (a whole number of rows).
 * `resolution` names the rollup; without it the span picks the 1- or 15-minute one.
 */
export function rollupBuckets(
  db: Db,
  opts: { from: number; to: number; step: number; workerId?: string; resolution?: RollupResolution },
): SeriesRow[] {
  const { from, to, step, workerId } = opts;
  const level =
    STATS_TABLES[opts.resolution ?? (rollupLevel(to - from, step).stats === "worker_stats_15m" ? "15m" : "1m")];
  const start = from - (from % level.align);
  if (workerId !== undefined) {
    return db.$client
      .prepare(
        `SELECT worker_id AS workerId, minute - minute % @step AS t, ${rollupSums} FROM ${level.table} WHERE worker_id = @workerId AND minute >= @fromMinute AND minute < @to GROUP BY t`,
      )
      .all({ fromMinute: start, to, step, workerId }) as SeriesRow[];
  }
  // One range scan of the bucket-start index (covering but for the 15 min rollup); rows are the buckets when
  // the step is the rollup's own (no grouping: summing and sorting 23,000 rows cost more than the scan), else grouped.
  // Rows come back as arrays and become objects here: better-sqlite3 builds keyed rows about twice as slowly.
  const limit = (Math.ceil((to - start) / step) + 1) * MAX_WORKERS * 4;
  const sql =
    step === level.align
      ? `SELECT worker_id, minute, samples, kv_active_sum, kv_total_sum, prefix_query_delta, prefix_hit_delta
         FROM ${level.table} INDEXED BY ${level.minuteIndex} WHERE minute >= @fromMinute AND minute < @to LIMIT @limit`
      : `SELECT worker_id, minute - minute % @step AS t, ${rollupSums} FROM ${level.table} INDEXED BY ${level.minuteIndex}
         WHERE minute >= @fromMinute AND minute < @to GROUP BY worker_id, t LIMIT @limit`;
  const rows = db.$client
    .prepare(sql)
    .raw()
    .all({ fromMinute: start, to, limit, ...(step === level.align ? {} : { step }) }) as [
    string,
    number,
    number,
    number,
    number,
    number,
    number,
  ][];
  return rows.map((r) => ({
    workerId: r[0],
    t: r[1],
    samples: r[2],
    kvActive: r[3],
    kvTotal: r[4],
    query: r[5],
    hit: r[6],
  }));
}
