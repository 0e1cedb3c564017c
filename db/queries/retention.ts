import type { Db } from "../client";

/** Tables of raw, high-volume telemetry that age out; rollups and sessions stay. */
const RAW_TABLES = ["worker_stats", "kv_events"] as const;

/** Delete raw rows older than cutoff (Unix ms) in small chunks so ingest is never blocked long. */
export function deleteRawBefore(db: Db, cutoff: number, chunk = 5_000): Record<string, number> {
  const out: Record<string, number> = {};
  for (const table of RAW_TABLES) {
    const stmt = db.$client.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ts < ? LIMIT ?)`);
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
