import type postgres from "postgres";
import type { IngestRow } from "../rows/ingest";
import type { StoreStatus } from "../rows/ingest";
import { noteSeen } from "../ingest/rollups";

// The workers table on PostgreSQL's ingest: the same upserts as SQLite's (db/sqlite/ingest-statements.ts), in the
// batch's transaction, for accepted events only.

type Seen = Map<string, { first: number; last: number; kvTotal: number }>;

const UP = `INSERT INTO workers (worker_id, role, model, block_size, kv_total_blocks, first_seen, last_seen, up_at)
  VALUES ($1, $2, $3, $4, $5, $6, $6, $6)
  ON CONFLICT (worker_id) DO UPDATE SET role = excluded.role, model = excluded.model, block_size = excluded.block_size,
    kv_total_blocks = excluded.kv_total_blocks, first_seen = least(workers.first_seen, excluded.first_seen),
    last_seen = greatest(workers.last_seen, excluded.last_seen), up_at = greatest(coalesce(workers.up_at, 0), excluded.up_at)`;

const DOWN = `INSERT INTO workers (worker_id, first_seen, last_seen, down_at, down_reason) VALUES ($1, $2, $2, $2, $3)
  ON CONFLICT (worker_id) DO UPDATE SET last_seen = greatest(workers.last_seen, excluded.last_seen),
    down_at = greatest(coalesce(workers.down_at, 0), excluded.down_at), down_reason = excluded.down_reason`;

const SEEN = `INSERT INTO workers (worker_id, kv_total_blocks, first_seen, last_seen)
  SELECT * FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::bigint[])
  ON CONFLICT (worker_id) DO UPDATE SET
    kv_total_blocks = CASE WHEN excluded.last_seen >= workers.last_seen THEN excluded.kv_total_blocks ELSE workers.kv_total_blocks END,
    first_seen = least(workers.first_seen, excluded.first_seen), last_seen = greatest(workers.last_seen, excluded.last_seen)`;

/** Apply accepted worker.up / worker.down in batch order, then one upsert of what worker.stats samples saw. */
export async function upsertWorkers(
  tx: postgres.Sql,
  events: readonly IngestRow[],
  out: readonly StoreStatus[],
): Promise<void> {
  const seen: Seen = new Map();
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (out[i] !== "accepted") continue;
    if (e.kind === "worker.stats") noteSeen(seen, e.worker_id, e.ts, e.kv_total_blocks);
    else if (e.kind === "worker.up")
      pending.push(
        tx.unsafe(UP, [e.worker_id, e.role, e.model, e.block_size, e.kv_total_blocks, e.ts], { prepare: true }),
      );
    else if (e.kind === "worker.down")
      pending.push(tx.unsafe(DOWN, [e.worker_id, e.ts, e.reason ?? null], { prepare: true }));
  }
  if (seen.size > 0) {
    const w = [...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    pending.push(
      tx.unsafe(
        SEEN,
        [w.map(([id]) => id), w.map(([, s]) => s.kvTotal), w.map(([, s]) => s.first), w.map(([, s]) => s.last)],
        { prepare: true },
      ),
    );
  }
  await Promise.all(pending);
}
