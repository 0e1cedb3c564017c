import type { Db } from "./client";
import { storeSeqTailsBefore } from "./chains";
import { rebaseDependents } from "./chains-rebase";
import { REF_WINDOW_MS } from "./kv-lists";

/** Retention tiers: raw samples (hours), per-request detail (days), rollups and session summaries (400 days). */
export type RetentionTier = "raw" | "detail" | "summary";

/** A table that ages out; a bucketed rollup (`bucketMs`) ages out once its whole bucket is before the cutoff. */
export type RetentionTable = { table: string; column: string; tier: RetentionTier; label: string; bucketMs?: number };

/** Every table that ages out, the indexed time column (Unix ms) it ages by, and its tier. */
export const RETENTION_TABLES: readonly RetentionTable[] = [
  { table: "worker_stats", column: "ts", tier: "raw", label: "Worker samples" },
  { table: "kv_events", column: "ts", tier: "raw", label: "KV events" },
  { table: "worker_stats_10s", column: "minute", tier: "raw", label: "Worker rollups (10 s)", bucketMs: 10_000 },
  { table: "worker_stats_30s", column: "minute", tier: "raw", label: "Worker rollups (30 s)", bucketMs: 30_000 },
  { table: "requests", column: "arrived_at", tier: "detail", label: "Requests" },
  { table: "tools", column: "ts", tier: "detail", label: "Tool calls" },
  { table: "reasoning_spans", column: "ts", tier: "detail", label: "Reasoning spans" },
  { table: "route_decisions", column: "ts", tier: "detail", label: "Routing decisions" },
  { table: "planner_decisions", column: "ts", tier: "detail", label: "Planner decisions" },
  { table: "request_causes", column: "arrived_at", tier: "detail", label: "Miss attribution" },
  { table: "alert_events", column: "ts", tier: "detail", label: "Alert history" },
  { table: "requests_1m", column: "minute", tier: "summary", label: "Request rollups" },
  { table: "request_ttft_1m", column: "minute", tier: "summary", label: "TTFT rollups" },
  { table: "requests_scope_1m", column: "minute", tier: "summary", label: "Request rollups by cluster and model" },
  { table: "request_ttft_scope_1m", column: "minute", tier: "summary", label: "TTFT rollups by cluster and model" },
  { table: "route_decisions_1m", column: "minute", tier: "summary", label: "Routing rollups (1 min)" },
  { table: "route_decisions_15m", column: "minute", tier: "summary", label: "Routing rollups (15 min)" },
  { table: "worker_stats_1m", column: "minute", tier: "summary", label: "Worker rollups (1 min)" },
  { table: "worker_stats_5m", column: "minute", tier: "summary", label: "Worker rollups (5 min)" },
  { table: "worker_stats_15m", column: "minute", tier: "summary", label: "Worker rollups (15 min)" },
  { table: "request_itl_1m", column: "minute", tier: "summary", label: "ITL rollups" },
  { table: "request_tiers_1m", column: "minute", tier: "summary", label: "Cached-by-tier rollups" },
  { table: "kv_tiers_1m", column: "minute", tier: "summary", label: "KV tier rollups" },
  { table: "kvbm_1m", column: "minute", tier: "summary", label: "KVBM rollups" },
  { table: "causes_1m", column: "minute", tier: "summary", label: "Miss-cause rollups" },
  { table: "session_summaries", column: "last_at", tier: "summary", label: "Session summaries" },
  { table: "preview_results", column: "computed_at", tier: "summary", label: "Policy previews" },
];

const RAW_TABLES = RETENTION_TABLES.filter((t) => t.tier === "raw");

/**
 * Delete at most `limit` rows of `table` whose `column` is before cutoff (Unix ms), oldest first by its index: one
 * statement, so one short transaction. Returns how many rows went. Table and column come from RETENTION_TABLES only.
 */
export function deleteBatchBefore(db: Db, table: string, column: string, cutoff: number, limit: number): number {
  const t = RETENTION_TABLES.find((r) => r.table === table && r.column === column);
  if (!t) throw new Error(`not a retention table: ${table}.${column}`);
  const before = t.bucketMs ? cutoff - t.bucketMs + 1 : cutoff;
  if (table === "requests") return deleteRequestsBefore(db, before, limit);
  if (table === "kv_events") return deleteKvEventsBefore(db, before, limit);
  return db.$client
    .prepare(
      `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${column} < ? ORDER BY ${column} LIMIT ?)`,
    )
    .run(before, limit).changes;
}

/** Delete the oldest requests before cutoff; a later turn stored as their extension is first stored whole (rebaseDependents). */
function deleteRequestsBefore(db: Db, cutoff: number, limit: number): number {
  const c = db.$client;
  return c.transaction(() => {
    const ids = c
      .prepare("SELECT id FROM requests WHERE arrived_at < ? ORDER BY arrived_at LIMIT ?")
      .pluck()
      .all(cutoff, limit) as string[];
    rebaseDependents(db, ids);
    const del = c.prepare("DELETE FROM requests WHERE id = ?");
    for (const id of ids) del.run(id);
    return ids.length;
  })();
}

/**
 * Delete the oldest KV events before cutoff. A request's sequence tail refers only to KV events at most
 * REF_WINDOW_MS (plus the second the location map rounds to) older than it: the oldest requests that may refer to
 * the events going are first stored literally (at most `limit` per call, as the deletes), and only events older than
 * every request still referring to KV events, by that window, are deleted.
 */
function deleteKvEventsBefore(db: Db, cutoff: number, limit: number): number {
  const c = db.$client;
  const slack = REF_WINDOW_MS + 2_000;
  return c.transaction(() => {
    const oldest = storeSeqTailsBefore(db, cutoff + slack, limit);
    const safe = oldest === null ? cutoff : Math.min(cutoff, oldest - slack);
    return c
      .prepare("DELETE FROM kv_events WHERE rowid IN (SELECT rowid FROM kv_events WHERE ts < ? ORDER BY ts LIMIT ?)")
      .run(safe, limit).changes;
  })();
}

/** Delete raw rows older than cutoff (Unix ms) in small chunks so ingest is never blocked long. */
export function deleteRawBefore(db: Db, cutoff: number, chunk = 5_000): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { table, column } of RAW_TABLES) {
    let total = 0;
    for (;;) {
      const n = deleteBatchBefore(db, table, column, cutoff, chunk);
      total += n;
      if (n < chunk) break;
    }
    out[table] = total;
  }
  return out;
}
