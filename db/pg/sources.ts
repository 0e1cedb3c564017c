import type postgres from "postgres";

// What ingest records about its senders on PostgreSQL, as SQLite's recordSourceOk (db/queries/source-registry.ts)
// and recordDroppedEvents (db/queries/sources.ts) do: the sender's source_status row, and its dropped-events report.

/** The settings key prefix of a sender's dropped-events total (as on SQLite). */
const DROPPED_PREFIX = "dropped_events:";

const SOURCE_OK = `INSERT INTO source_status (id, kind, name, last_success_at, success_count, events_total, last_events, updated_at)
  VALUES ($1, $2, $3, $4, 1, $5, $6, $4)
  ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name,
    last_success_at = greatest(coalesce(source_status.last_success_at, 0), excluded.last_success_at),
    success_count = source_status.success_count + 1, events_total = source_status.events_total + excluded.events_total,
    last_events = excluded.last_events, updated_at = excluded.updated_at`;

const DROPPED = `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
  WHERE excluded.value::bigint > settings.value::bigint`;

export type SenderRecord = {
  /** source_status identity: `ingest:<source>`, kind "ingest", and the name the Sources page shows. */
  id: string;
  kind: string;
  name: string;
  /** The X-Switchyard-Source name its dropped-events report is kept under. */
  source: string;
  /** Its running dropped-events total, null when the batch reported none. */
  dropped: number | null;
};

/** Record a batch's sender at `at` (Unix ms) with the events it had accepted; in the batch's transaction. */
export async function recordSenderPg(tx: postgres.Sql, s: SenderRecord, accepted: number, at: number): Promise<void> {
  const events = Math.max(0, Math.round(accepted));
  const writes: Promise<unknown>[] = [];
  if (s.dropped !== null)
    writes.push(tx.unsafe(DROPPED, [DROPPED_PREFIX + s.source, String(s.dropped), at], { prepare: true }));
  writes.push(tx.unsafe(SOURCE_OK, [s.id, s.kind, s.name, at, events, events], { prepare: true }));
  await Promise.all(writes);
}
