import type { Db } from "../client";
import { minuteOf } from "../../lib/counters";
import type { HistogramEntry } from "../../lib/latency-buckets";
import type { DecisionBucket, TokenBucket } from "../rows/routing";

// Reads of the per-minute request and routing rollups. Ranges are widened to whole minutes at the start.

const MAX_ROWS = 20_000;
const QUARTER_HOUR = 900_000;
const COARSE_MIN_SPAN_MS = 6 * 3_600_000;

export type RollupLevel = { stats: string; statsMinuteIndex: string; decisions: string; align: number };

const MINUTE_LEVEL: RollupLevel = {
  stats: "worker_stats_1m",
  statsMinuteIndex: "worker_stats_1m_minute",
  decisions: "route_decisions_1m",
  align: 60_000,
};
const QUARTER_LEVEL: RollupLevel = {
  stats: "worker_stats_15m",
  statsMinuteIndex: "worker_stats_15m_minute",
  decisions: "route_decisions_15m",
  align: QUARTER_HOUR,
};

/**
 * Which rollup tables serve a span read in buckets of `step` ms: 15-minute rows for spans over 6 h when the step is
 * whole quarter-hours (a 24 h view reads ~1/15 of the rows), else 1-minute rows. The range start is widened to `align`.
 */
export function rollupLevel(spanMs: number, step: number = QUARTER_HOUR): RollupLevel {
  return spanMs > COARSE_MIN_SPAN_MS && step % QUARTER_HOUR === 0 ? QUARTER_LEVEL : MINUTE_LEVEL;
}

/** Requests that arrived in the minutes overlapping [from, to). */
export function rolledRequestCount(db: Db, from: number, to: number): number {
  return db.$client
    .prepare("SELECT coalesce(sum(requests), 0) FROM requests_1m WHERE minute >= ? AND minute < ?")
    .pluck()
    .get(minuteOf(from), to) as number;
}

/** The TTFT histogram of requests in the minutes overlapping [from, to). */
export function rolledTtftHistogram(db: Db, from: number, to: number): HistogramEntry[] {
  return db.$client
    .prepare("SELECT bucket, sum(n) AS n FROM request_ttft_1m WHERE minute >= ? AND minute < ? GROUP BY bucket")
    .all(minuteOf(from), to) as HistogramEntry[];
}

/**
 * Requests per bucket of `step` ms (a multiple of a minute), ascending, and the TTFT histogram entries of each bucket
 * (in no order; a bucket may repeat); buckets without requests are absent.
 */
export function rolledRequestBuckets(
  db: Db,
  from: number,
  to: number,
  step: number,
): { counts: { t: number; requests: number }[]; ttft: ({ t: number } & HistogramEntry)[] } {
  const args = { from: minuteOf(from), to, step };
  const counts = db.$client
    .prepare(
      `SELECT minute - minute % @step AS t, sum(requests) AS requests FROM requests_1m WHERE minute >= @from AND minute < @to GROUP BY t ORDER BY t LIMIT ${MAX_ROWS}`,
    )
    .all(args) as { t: number; requests: number }[];
  const ttft = db.$client
    .prepare(
      `SELECT minute - minute % @step AS t, bucket, sum(n) AS n FROM request_ttft_1m WHERE minute >= @from AND minute < @to GROUP BY t, bucket LIMIT ${MAX_ROWS * 10}`,
    )
    .all(args) as ({ t: number } & HistogramEntry)[];
  return { counts, ttft };
}

/** Prompt and cached tokens per bucket of `step` ms from the request rollups; empty buckets are absent. */
export function rolledTokenBuckets(db: Db, from: number, to: number, step: number): TokenBucket[] {
  return db.$client
    .prepare(
      `SELECT minute - minute % @step AS t, sum(requests) AS requests, sum(input_tokens) AS input, sum(cached_tokens) AS cached
       FROM requests_1m WHERE minute >= @from AND minute < @to GROUP BY t ORDER BY t LIMIT ${MAX_ROWS}`,
    )
    .all({ from: minuteOf(from), to, step }) as { t: number; requests: number; input: number; cached: number }[];
}

/** Decisions, lost and prompt blocks per bucket of `step` ms and chosen worker, from the routing rollups. */
export function rolledDecisionBuckets(db: Db, from: number, to: number, step: number): DecisionBucket[] {
  const level = rollupLevel(to - from, step);
  return db.$client
    .prepare(
      `SELECT minute - minute % @step AS t, chosen_worker_id AS workerId, sum(decisions) AS decisions, sum(lost_blocks) AS lostBlocks, sum(prompt_blocks) AS promptBlocks
       FROM ${level.decisions} WHERE minute >= @from AND minute < @to GROUP BY t, chosen_worker_id ORDER BY t LIMIT ${MAX_ROWS}`,
    )
    .all({ from: from - (from % level.align), to, step }) as {
    t: number;
    workerId: string;
    decisions: number;
    lostBlocks: number;
    promptBlocks: number;
  }[];
}
