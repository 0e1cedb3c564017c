import { asc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { sourceStatus, sources } from "../schema";
import type { SourceSeen } from "../rows/sources";

export type SourceRow = {
  id: string;
  kind: string;
  name: string;
  config: Record<string, unknown>;
  enabled: boolean;
  origin: string;
  createdAt: number;
  updatedAt: number;
};
export type SourceStatusRow = {
  id: string;
  kind: string;
  name: string;
  lastSuccessAt: number | null;
  lastErrorAt: number | null;
  lastError: string | null;
  errorCount: number;
  successCount: number;
  eventsTotal: number;
  lastEvents: number | null;
  series: number | null;
  durationMs: number | null;
  missing: string[];
  renamed: string[];
  gaps: number;
  detail: Record<string, unknown>;
  updatedAt: number;
};
export type SourceInput = {
  id: string;
  kind: string;
  name: string;
  config: unknown;
  enabled: boolean;
  origin?: string;
};
type Identity = { id: string; kind: string; name: string };

const MAX_SOURCES = 500;
const MAX_ERROR_CHARS = 1_000;
const MAX_NAMES = 200;

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function toSource(row: typeof sources.$inferSelect): SourceRow {
  return { ...row, config: parseJson<Record<string, unknown>>(row.config, {}) };
}

function toStatus(row: typeof sourceStatus.$inferSelect): SourceStatusRow {
  return {
    ...row,
    missing: parseJson<string[]>(row.missing, []),
    renamed: parseJson<string[]>(row.renamed, []),
    detail: parseJson<Record<string, unknown>>(row.detail, {}),
  };
}

/** Every configured source, oldest first (bounded). */
export function listSources(db: Db): SourceRow[] {
  return db
    .select()
    .from(sources)
    .orderBy(asc(sources.createdAt), asc(sources.id))
    .limit(MAX_SOURCES)
    .all()
    .map(toSource);
}

/** One configured source, or null. */
export function getSource(db: Db, id: string): SourceRow | null {
  const row = db.select().from(sources).where(eq(sources.id, id)).get();
  return row ? toSource(row) : null;
}

/** Insert or replace a source's kind, name, config and enabled flag; keeps its creation time and status. */
export function upsertSource(db: Db, input: SourceInput, now: number): SourceRow {
  const values = {
    kind: input.kind,
    name: input.name,
    config: JSON.stringify(input.config ?? {}),
    enabled: input.enabled,
    updatedAt: now,
  };
  db.transaction((tx) => {
    tx.insert(sources)
      .values({ id: input.id, ...values, origin: input.origin ?? "ui", createdAt: now })
      .onConflictDoUpdate({ target: sources.id, set: { ...values, ...(input.origin ? { origin: input.origin } : {}) } })
      .run();
    tx.update(sourceStatus).set({ name: input.name, kind: input.kind }).where(eq(sourceStatus.id, input.id)).run();
  });
  return getSource(db, input.id)!;
}

/** Remove a configured source and its status; false when there was none. */
export function removeSource(db: Db, id: string): boolean {
  return db.transaction((tx) => {
    tx.delete(sourceStatus).where(eq(sourceStatus.id, id)).run();
    return tx.delete(sources).where(eq(sources.id, id)).run().changes > 0;
  });
}

/** Status of every source that has reported (configured or implicit), by id. */
export function listSourceStatus(db: Db): SourceStatusRow[] {
  return db.select().from(sourceStatus).orderBy(asc(sourceStatus.id)).limit(MAX_SOURCES).all().map(toStatus);
}

/** One source's status, or null before its first report. */
export function getSourceStatus(db: Db, id: string): SourceStatusRow | null {
  const row = db.select().from(sourceStatus).where(eq(sourceStatus.id, id)).get();
  return row ? toStatus(row) : null;
}

const bounded = (names: string[] | undefined) =>
  JSON.stringify((names ?? []).slice(0, MAX_NAMES).map((n) => String(n).slice(0, 300)));
const count = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? 0 : Math.max(0, Math.round(n)));

/** A successful pass: bump counters, replace series/duration/missing/renamed when given. */
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

/** A failed pass: keep the message (truncated) and its time, count it. */
export function recordSourceError(db: Db, who: Identity, at: number, message: string): void {
  db.$client
    .prepare(
      `INSERT INTO source_status (id, kind, name, last_error_at, last_error, error_count, updated_at)
       VALUES (@id, @kind, @name, @at, @message, 1, @at)
       ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, name = excluded.name, last_error_at = excluded.last_error_at,
         last_error = excluded.last_error, error_count = error_count + 1, updated_at = excluded.updated_at`,
    )
    .run({ id: who.id, kind: who.kind, name: who.name, at, message: message.slice(0, MAX_ERROR_CHARS) });
}
