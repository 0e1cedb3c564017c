import type postgres from "postgres";

// Source health on PostgreSQL, as SQLite's recordSourceOk (db/sqlite/source-registry.ts) and recordDroppedEvents
// (db/sqlite/sources.ts) write it: a source's source_status row, and an ingest sender's dropped-events report.

/** The settings key prefix of a sender's dropped-events total (as on SQLite). */
const DROPPED_PREFIX = "dropped_events:";

const SOURCE_OK = `INSERT INTO source_status (id, kind, name, last_success_at, success_count, events_total, last_events, detail, updated_at)
  VALUES ($1, $2, $3, $4, 1, $5, $6, coalesce($7, '{}'), $4)
  ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name,
    last_success_at = greatest(coalesce(source_status.last_success_at, 0), excluded.last_success_at),
    success_count = source_status.success_count + 1, events_total = source_status.events_total + excluded.events_total,
    last_events = excluded.last_events, detail = coalesce($7, source_status.detail), updated_at = excluded.updated_at`;

const DROPPED = `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
  WHERE excluded.value::bigint > settings.value::bigint`;

/** A source_status identity: id, kind (a SourceKind) and the name the Sources page shows. */
export type SourceIdentity = { id: string; kind: string; name: string };

/** A successful pass of a source at `at` (Unix ms) that delivered `events`; `detail` replaces the kept one when given. */
export async function recordSourceOkPg(
  sql: postgres.Sql,
  who: SourceIdentity,
  at: number,
  seen: { events: number; detail?: Record<string, unknown> },
): Promise<void> {
  const events = Number.isFinite(seen.events) ? Math.max(0, Math.round(seen.events)) : 0;
  const detail = seen.detail === undefined ? null : JSON.stringify(seen.detail);
  await sql.unsafe(SOURCE_OK, [who.id, who.kind, who.name, at, events, events, detail], { prepare: true });
}

/** An ingest sender's batch: its status row with the events it had accepted, and its dropped-events report if any. */
export async function recordSenderPg(
  tx: postgres.Sql,
  who: SourceIdentity & { source: string; dropped: number | null },
  accepted: number,
  at: number,
): Promise<void> {
  const writes: Promise<unknown>[] = [recordSourceOkPg(tx, who, at, { events: accepted })];
  if (who.dropped !== null)
    writes.push(tx.unsafe(DROPPED, [DROPPED_PREFIX + who.source, String(who.dropped), at], { prepare: true }));
  await Promise.all(writes);
}
