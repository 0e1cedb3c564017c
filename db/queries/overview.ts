import type { Db } from "../client";
import { minuteOf } from "../../lib/counters";
import type { WorkerSample } from "../rows/overview";

/** Time to first token (ms), ascending, of requests that arrived in [from, to). */
export function ttftsInRange(db: Db, from: number, to: number): number[] {
  return db.$client
    .prepare(
      "SELECT first_token_at - arrived_at FROM requests WHERE arrived_at >= ? AND arrived_at < ? AND first_token_at IS NOT NULL ORDER BY 1",
    )
    .pluck()
    .all(from, to) as number[];
}

/** Requests that arrived in [from, to). */
export function requestCount(db: Db, from: number, to: number): number {
  return db.$client
    .prepare("SELECT count(*) FROM requests WHERE arrived_at >= ? AND arrived_at < ?")
    .pluck()
    .get(from, to) as number;
}

/** Distinct sessions with a request in [from, to). */
export function sessionCount(db: Db, from: number, to: number): number {
  return db.$client
    .prepare(
      "SELECT count(DISTINCT session_id) FROM requests WHERE arrived_at >= ? AND arrived_at < ? AND session_id IS NOT NULL",
    )
    .pluck()
    .get(from, to) as number;
}

/** Prefix tokens queried and hit, from the per-minute rollups of the minutes overlapping [from, to). */
export function prefixTokens(db: Db, from: number, to: number): { query: number; hit: number } {
  const row = db.$client
    .prepare(
      "SELECT coalesce(sum(prefix_query_delta), 0) AS query, coalesce(sum(prefix_hit_delta), 0) AS hit FROM worker_stats_1m WHERE minute >= ? AND minute < ?",
    )
    .get(minuteOf(from), to) as { query: number; hit: number };
  return row;
}

/** The latest sample per worker in [from, to], with the worker's role; workers that went down after it are left out. */
export function latestWorkerSamples(db: Db, from: number, to: number): WorkerSample[] {
  return db.$client
    .prepare(
      `SELECT s.worker_id AS workerId, w.role AS role, s.kv_active_blocks AS kvActiveBlocks, s.kv_total_blocks AS kvTotalBlocks
       FROM (SELECT worker_id, kv_active_blocks, kv_total_blocks, max(ts) AS ts FROM worker_stats WHERE ts >= ? AND ts <= ? GROUP BY worker_id) s
       LEFT JOIN workers w ON w.worker_id = s.worker_id
       WHERE w.down_at IS NULL OR w.down_at < s.ts OR w.down_at > ?
       ORDER BY s.worker_id`,
    )
    .all(from, to, to) as WorkerSample[];
}

/** True once anything at all has been ingested (tells "no data yet" from "nothing in this range"). */
export function hasAnyTelemetry(db: Db): boolean {
  const tables = [
    "workers",
    "requests",
    "kv_events",
    "route_decisions",
    "tools",
    "reasoning_spans",
    "planner_decisions",
    "policy_acks",
  ];
  return Boolean(
    db.$client
      .prepare(`SELECT ${tables.map((t) => `EXISTS (SELECT 1 FROM ${t})`).join(" OR ")}`)
      .pluck()
      .get(),
  );
}

/**
 * Per bucket of `step` ms over raw requests that arrived in [from, to): how many, and the nearest-rank median
 * TTFT (ms) of those with a first token (null when none had one). Buckets without requests are absent.
 */
export function rawRequestTrend(
  db: Db,
  from: number,
  to: number,
  step: number,
): { t: number; requests: number; ttftP50: number | null }[] {
  return db.$client
    .prepare(
      `WITH x AS MATERIALIZED (
         SELECT arrived_at - arrived_at % @step AS t, first_token_at - arrived_at AS v FROM requests WHERE arrived_at >= @from AND arrived_at < @to),
       c AS (SELECT t, count(*) AS requests, count(v) AS timed FROM x GROUP BY t),
       r AS (SELECT t, v, row_number() OVER (PARTITION BY t ORDER BY v) AS rn FROM x WHERE v IS NOT NULL)
       SELECT c.t, c.requests, r.v AS ttftP50 FROM c LEFT JOIN r ON r.t = c.t AND r.rn = (c.timed + 1) / 2 ORDER BY c.t LIMIT 5000`,
    )
    .all({ from, to, step }) as { t: number; requests: number; ttftP50: number | null }[];
}
