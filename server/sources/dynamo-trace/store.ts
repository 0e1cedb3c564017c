import type { Db } from "../../../db/client";

// The few reads and writes the trace importer needs: the last KV sample of a worker (load samples carry it forward)
// and the watched directory's memory of imported files (one settings row per source).

export type KvState = {
  kv_active_blocks: number;
  kv_total_blocks: number;
  prefix_query_tokens: string;
  prefix_hit_tokens: string;
};

/** The newest KV sample of a worker at or before ts, or null when the worker has none. */
export function lastKvState(db: Db, workerId: string, ts: number): KvState | null {
  const row = db.$client
    .prepare(
      `SELECT kv_active_blocks, kv_total_blocks, prefix_query_tokens, prefix_hit_tokens FROM worker_stats
       WHERE worker_id = ? AND ts <= ? ORDER BY ts DESC LIMIT 1`,
    )
    .get(workerId, ts) as
    | {
        kv_active_blocks: number;
        kv_total_blocks: number;
        prefix_query_tokens: string | number;
        prefix_hit_tokens: string | number;
      }
    | undefined;
  return row
    ? { ...row, prefix_query_tokens: String(row.prefix_query_tokens), prefix_hit_tokens: String(row.prefix_hit_tokens) }
    : null;
}

/** The stored JSON value under key, or null. */
export function readSetting(db: Db, key: string): string | null {
  const row = db.$client.prepare("SELECT value FROM settings WHERE key = ?").get(key) as { value: string } | undefined;
  return row?.value ?? null;
}

/** Store (or replace) a settings value. */
export function writeSetting(db: Db, key: string, value: string, now: number): void {
  db.$client
    .prepare(
      "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    )
    .run(key, value, now);
}
