import type { Db } from "./client";
import type { SourceSeen } from "../rows/sources";

// SQLite ingest's own source_status write, synchronous so it runs inside the batch's write transaction (an ingest
// sender's row: server/ingest/sender.ts). Everything else about sources, on either engine, is db/store/sources.ts;
// this statement writes what its recordSourceOk does.

type Identity = { id: string; kind: string; name: string };
const MAX_NAMES = 200;

const bounded = (names: string[] | undefined) =>
  JSON.stringify((names ?? []).slice(0, MAX_NAMES).map((n) => String(n).slice(0, 300)));
const count = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? 0 : Math.max(0, Math.round(n)));

/** A successful pass: bump counters, replace series/duration/missing/renamed when given (as db/store/sources.ts). */
export function recordSourceOk(db: Db, who: Identity, at: number, seen: SourceSeen): void {
  const events = count(seen.events);
  db.$client
    .prepare(
      `INSERT INTO source_status (id, kind, name, last_success_at, success_count, events_total, last_events, series, duration_ms, missing, renamed, gaps, detail, updated_at)
       VALUES (@id, @kind, @name, @at, 1, @events, @lastEvents, @series, @durationMs, @missing, @renamed, @gaps, @detail, @at)
       ON CONFLICT(id) DO UPDATE SET
         kind = excluded.kind, name = excluded.name,
         last_success_at = max(coalesce(last_success_at, 0), excluded.last_success_at),
         success_count = success_count + 1,
         events_total = events_total + excluded.events_total,
         last_events = coalesce(excluded.last_events, last_events),
         series = coalesce(excluded.series, series),
         duration_ms = coalesce(excluded.duration_ms, duration_ms),
         missing = CASE WHEN @hasMissing THEN excluded.missing ELSE missing END,
         renamed = CASE WHEN @hasRenamed THEN excluded.renamed ELSE renamed END,
         gaps = gaps + excluded.gaps,
         detail = CASE WHEN @hasDetail THEN excluded.detail ELSE detail END,
         updated_at = excluded.updated_at`,
    )
    .run({
      id: who.id,
      kind: who.kind,
      name: who.name,
      at,
      events,
      lastEvents: seen.events === undefined ? null : events,
      series: seen.series === undefined ? null : count(seen.series),
      durationMs: seen.durationMs === undefined ? null : count(seen.durationMs),
      missing: bounded(seen.missing),
      renamed: bounded(seen.renamed),
      gaps: count(seen.gaps),
      detail: JSON.stringify(
        typeof seen.detail === "string" ? { note: seen.detail.slice(0, 500) } : (seen.detail ?? {}),
      ),
      hasMissing: seen.missing ? 1 : 0,
      hasRenamed: seen.renamed ? 1 : 0,
      hasDetail: seen.detail ? 1 : 0,
    });
}
