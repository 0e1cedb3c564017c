import type { Db } from "../client";

/** Tables of raw, high-volume telemetry that age out; rollups and sessions stay. */
const RAW_TABLES = ["worker_stats", "kv_events", "worker_stats_10s", "worker_stats_30s"] as const;
/** A 10- or 30-second rollup row ages out once its whole bucket is before the cutoff (it serves the same ranges as raw samples). */
const BEFORE: Record<string, string> = { worker_stats_10s: "minute <= ? - 10000", worker_stats_30s: "minute <= ? - 30000" };

/** Delete raw rows older than cutoff (Unix ms) in small chunks so ingest is never blocked long. */
export function deleteRawBefore(db: Db, cutoff: number, chunk = 5_000): Record<string, number> {
  const out: Record<string, number> = {};
  for (const table of RAW_TABLES) {
    const stmt = db.$client.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${BEFORE[table] ?? "ts < ?"} LIMIT ?)`);
    let total = 0;
    for (;;) {
      const n = stmt.run(cutoff, chunk).changes;
      total += n;
      if (n < chunk) break;
    }
    out[table] = total;
  }
  return out;
}
