import type { Db } from "../client";
import { minuteOf } from "../../lib/counters";
import type { HistogramEntry } from "../../lib/latency-buckets";

// Decode-side telemetry rows: inter-token latency and preemptions, cluster-wide or for one worker, from raw requests
// or the per-minute rollups. Which to read and the percentiles are server/reads/decode.ts's.

const MAX_RAW = 200_000;

/** Stat column of request_itl_1m: 0 the requests' mean ITL, 1 their p95 ITL. */
export type ItlStat = 0 | 1;

function rawWhere(workerId: string | undefined): string {
  return `arrived_at >= @from AND arrived_at < @to${workerId === undefined ? "" : " AND worker_id = @w"}`;
}

/** A per-request ITL column (ms), ascending, of requests that arrived in [from, to) (optionally on one worker) and reported it. */
export function itlValues(
  db: Db,
  from: number,
  to: number,
  column: "itl_ms_mean" | "itl_ms_p95",
  workerId?: string,
): number[] {
  return db.$client
    .prepare(
      `SELECT ${column} FROM requests WHERE ${rawWhere(workerId)} AND ${column} IS NOT NULL ORDER BY 1 LIMIT ${MAX_RAW}`,
    )
    .pluck()
    .all({ from, to, w: workerId ?? null }) as number[];
}

/** Preemptions summed over, and the number of, requests that arrived in [from, to) (optionally on one worker) and were preempted. */
export function rawPreemptions(
  db: Db,
  from: number,
  to: number,
  workerId?: string,
): { preemptions: number; preempted: number } {
  return db.$client
    .prepare(
      `SELECT coalesce(sum(preemptions), 0) AS preemptions, count(preemptions) AS preempted FROM requests WHERE ${rawWhere(workerId)} AND preemptions > 0`,
    )
    .get({ from, to, w: workerId ?? null }) as { preemptions: number; preempted: number };
}

/** The ITL histogram of one stat over the minutes overlapping [from, to), optionally of one worker. */
export function rolledItlHistogram(
  db: Db,
  from: number,
  to: number,
  stat: ItlStat,
  workerId?: string,
): HistogramEntry[] {
  return db.$client
    .prepare(
      `SELECT bucket, sum(n) AS n FROM request_itl_1m WHERE minute >= ? AND minute < ? AND stat = ?${workerId === undefined ? "" : " AND worker_id = ?"} GROUP BY bucket`,
    )
    .all(...[minuteOf(from), to, stat, ...(workerId === undefined ? [] : [workerId])]) as HistogramEntry[];
}

/** Preemptions of requests in the minutes overlapping [from, to), from the request rollups. */
export function rolledPreemptions(db: Db, from: number, to: number): number {
  return db.$client
    .prepare("SELECT coalesce(sum(preemptions), 0) FROM requests_1m WHERE minute >= ? AND minute < ?")
    .pluck()
    .get(minuteOf(from), to) as number;
}

/** Growth of a worker's cumulative preemption counter over [from, to) from its stats rollups (0 when not reported). */
export function workerPreemptions(db: Db, from: number, to: number, workerId: string): number {
  const r = db.$client
    .prepare(
      "SELECT min(preemptions_min) AS lo, max(preemptions_max) AS hi FROM worker_stats_1m WHERE worker_id = ? AND minute >= ? AND minute < ?",
    )
    .get(workerId, minuteOf(from), to) as { lo: number | null; hi: number | null };
  return r.lo === null || r.hi === null ? 0 : r.hi - r.lo;
}

/**
 * Per worker over the minutes overlapping [from, to): preemption counter growth and mean batch tokens per pass (null when
 * not reported), and the ITL histogram entries per worker and stat.
 */
export function workerDecodeRows(
  db: Db,
  from: number,
  to: number,
): {
  workers: { w: string; preemptions: number | null; batch: number | null }[];
  itl: { w: string; stat: ItlStat; bucket: number; n: number }[];
} {
  const workers = db.$client
    .prepare(
      `SELECT worker_id AS w, max(preemptions_max) - min(preemptions_min) AS preemptions, sum(batch_tokens_sum) / nullif(sum(batch_samples), 0) AS batch
       FROM worker_stats_1m WHERE minute >= ? AND minute < ? GROUP BY worker_id LIMIT 1000`,
    )
    .all(minuteOf(from), to) as { w: string; preemptions: number | null; batch: number | null }[];
  const itl = db.$client
    .prepare(
      `SELECT worker_id AS w, stat, bucket, sum(n) AS n FROM request_itl_1m WHERE minute >= ? AND minute < ? GROUP BY worker_id, stat, bucket LIMIT 100000`,
    )
    .all(minuteOf(from), to) as { w: string; stat: ItlStat; bucket: number; n: number }[];
  return { workers, itl };
}

/** The p95-ITL histogram entries per bucket of `step` ms (a multiple of a minute) over the minutes overlapping [from, to). */
export function rolledItlP95Buckets(
  db: Db,
  from: number,
  to: number,
  step: number,
): ({ t: number } & HistogramEntry)[] {
  return db.$client
    .prepare(
      `SELECT minute - minute % @step AS t, bucket, sum(n) AS n FROM request_itl_1m WHERE stat = 1 AND minute >= @from AND minute < @to GROUP BY t, bucket LIMIT 200000`,
    )
    .all({ from: minuteOf(from), to, step }) as ({ t: number } & HistogramEntry)[];
}

/** Each request's p95 ITL (ms) with its bucket of `step` ms, ordered by bucket then value, for requests in [from, to). */
export function rawItlP95Rows(db: Db, from: number, to: number, step: number): { t: number; v: number }[] {
  return db.$client
    .prepare(
      `SELECT arrived_at - arrived_at % ? AS t, itl_ms_p95 AS v FROM requests WHERE arrived_at >= ? AND arrived_at < ? AND itl_ms_p95 IS NOT NULL ORDER BY t, v LIMIT ${MAX_RAW}`,
    )
    .all(step, from, to) as { t: number; v: number }[];
}
