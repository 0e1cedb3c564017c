import { asc, desc, eq, like, sql } from "drizzle-orm";
import type { SourceSeen } from "../rows/sources";
import { bytewise } from "./sql";
import type { Store } from "./store";

// Configured sources, their health (source_status) and the senders' dropped-events reports on either engine. The
// reports are settings rows under one key prefix, written by ingest (db/sqlite/sources.ts, db/pg/sources.ts); a key
// compared by LIKE, not by range: PostgreSQL's collation may not order ':' before ';'. Times in Unix ms.

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
export type SourceStatusRow = Omit<Store["t"]["sourceStatus"]["$inferSelect"], "missing" | "renamed" | "detail"> & {
  missing: string[];
  renamed: string[];
  detail: Record<string, unknown>;
};
export type SourceInput = {
  id: string;
  kind: string;
  name: string;
  config: unknown;
  enabled: boolean;
  origin?: string;
};
export type SourceIdentity = { id: string; kind: string; name: string };

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

const toSource = (row: Store["t"]["sources"]["$inferSelect"]): SourceRow => ({
  ...row,
  config: parseJson<Record<string, unknown>>(row.config, {}),
});

const toStatus = (row: Store["t"]["sourceStatus"]["$inferSelect"]): SourceStatusRow => ({
  ...row,
  missing: parseJson<string[]>(row.missing, []),
  renamed: parseJson<string[]>(row.renamed, []),
  detail: parseJson<Record<string, unknown>>(row.detail, {}),
});

/** Every configured source, oldest first (at most 500). */
export async function listSources(s: Store): Promise<SourceRow[]> {
  const { sources } = s.t;
  const rows = await s.db
    .select()
    .from(sources)
    .orderBy(asc(sources.createdAt), bytewise(s, sources.id))
    .limit(MAX_SOURCES);
  return rows.map(toSource);
}

/** One configured source, or null. */
export async function getSource(s: Store, id: string): Promise<SourceRow | null> {
  const { sources } = s.t;
  const row = (await s.db.select().from(sources).where(eq(sources.id, id)).limit(1))[0];
  return row ? toSource(row) : null;
}

/** Insert or replace a source's kind, name, config and enabled flag; keeps its creation time and status. */
export async function upsertSource(s: Store, input: SourceInput, now: number): Promise<SourceRow> {
  const values = {
    kind: input.kind,
    name: input.name,
    config: JSON.stringify(input.config ?? {}),
    enabled: input.enabled,
    updatedAt: now,
  };
  return s.tx(async (t) => {
    const { sources, sourceStatus } = t.t;
    await t.db
      .insert(sources)
      .values({ id: input.id, ...values, origin: input.origin ?? "ui", createdAt: now })
      .onConflictDoUpdate({
        target: sources.id,
        set: { ...values, ...(input.origin ? { origin: input.origin } : {}) },
      });
    await t.db.update(sourceStatus).set({ name: input.name, kind: input.kind }).where(eq(sourceStatus.id, input.id));
    return (await getSource(t, input.id))!;
  });
}

/** Every configured source's id and stored config JSON, held for update on PostgreSQL (a pass that rewrites configs). */
export async function sourceConfigsForUpdate(s: Store): Promise<{ id: string; config: string }[]> {
  const { sources } = s.t;
  const q = s.db.select({ id: sources.id, config: sources.config }).from(sources).orderBy(asc(sources.id));
  return s.engine === "pg" ? q.for("update") : q;
}

/** Replace one source's stored config JSON, nothing else (its updated time stays: no one edited it). */
export async function setSourceConfig(s: Store, id: string, config: string): Promise<void> {
  return s.tx(async (t) => {
    const { sources } = t.t;
    await t.db.update(sources).set({ config }).where(eq(sources.id, id));
  });
}

/**
 * Remove a configured source and its status; false when there was none. The sources row goes first: its delete waits
 * for a status write that holds it (whileConfigured, FOR SHARE on PostgreSQL) to commit, so the status delete after it
 * sees that write, and a status write that comes later finds no row and writes nothing. Deleting the status first
 * let a write holding the row insert a status the removal never saw (the source came back as an implicit one).
 */
export async function removeSource(s: Store, id: string): Promise<boolean> {
  return s.tx(async (t) => {
    const { sources, sourceStatus } = t.t;
    const removed = (await t.db.delete(sources).where(eq(sources.id, id)).returning({ id: sources.id })).length > 0;
    await t.db.delete(sourceStatus).where(eq(sourceStatus.id, id));
    return removed;
  });
}

/** Status of every source that has reported (configured or implicit), by id (at most 500). */
export async function listSourceStatus(s: Store): Promise<SourceStatusRow[]> {
  const { sourceStatus } = s.t;
  const rows = await s.db.select().from(sourceStatus).orderBy(bytewise(s, sourceStatus.id)).limit(MAX_SOURCES);
  return rows.map(toStatus);
}

/** One source's status, or null before its first report. */
export async function getSourceStatus(s: Store, id: string): Promise<SourceStatusRow | null> {
  const { sourceStatus } = s.t;
  const row = (await s.db.select().from(sourceStatus).where(eq(sourceStatus.id, id)).limit(1))[0];
  return row ? toStatus(row) : null;
}

const bounded = (names: string[]) => JSON.stringify(names.slice(0, MAX_NAMES).map((n) => String(n).slice(0, 300)));
const count = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? 0 : Math.max(0, Math.round(n)));
const excluded = (column: string) => sql.raw(`excluded.${column}`);

/**
 * A successful pass: bump the counters (success, events, gaps), keep the latest success time, and replace
 * last events / series / duration / missing / renamed / detail with what this pass gave (the kept ones otherwise).
 */
export async function recordSourceOk(s: Store, who: SourceIdentity, at: number, seen: SourceSeen): Promise<void> {
  return s.tx(async (t) => {
    const { sourceStatus: st } = t.t;
    const events = count(seen.events);
    const detail = typeof seen.detail === "string" ? { note: seen.detail.slice(0, 500) } : seen.detail;
    const row = {
      ...who,
      lastSuccessAt: at,
      successCount: 1,
      eventsTotal: events,
      lastEvents: seen.events === undefined ? null : events,
      series: seen.series === undefined ? null : count(seen.series),
      durationMs: seen.durationMs === undefined ? null : count(seen.durationMs),
      missing: bounded(seen.missing ?? []),
      renamed: bounded(seen.renamed ?? []),
      gaps: count(seen.gaps),
      detail: JSON.stringify(detail ?? {}),
      updatedAt: at,
    };
    // Only what this pass reported replaces the kept value.
    const given = {
      ...(seen.events !== undefined && { lastEvents: excluded("last_events") }),
      ...(seen.series !== undefined && { series: excluded("series") }),
      ...(seen.durationMs !== undefined && { durationMs: excluded("duration_ms") }),
      ...(seen.missing && { missing: excluded("missing") }),
      ...(seen.renamed && { renamed: excluded("renamed") }),
      ...(seen.detail && { detail: excluded("detail") }),
    };
    await t.db
      .insert(st)
      .values(row)
      .onConflictDoUpdate({
        target: st.id,
        set: {
          kind: excluded("kind"),
          name: excluded("name"),
          lastSuccessAt: sql`CASE WHEN ${st.lastSuccessAt} > excluded.last_success_at THEN ${st.lastSuccessAt} ELSE excluded.last_success_at END`,
          successCount: sql`${st.successCount} + 1`,
          eventsTotal: sql`${st.eventsTotal} + excluded.events_total`,
          gaps: sql`${st.gaps} + excluded.gaps`,
          ...given,
          updatedAt: excluded("updated_at"),
        },
      });
  });
}

/**
 * Run a status write of a configured source only while its sources row exists; false when it was removed. A pass that
 * ends after its source was removed must not leave a status row behind (the Sources page would show it again, as an
 * implicit source). PostgreSQL: the row is held for the write, so a removal begun meanwhile waits and then deletes the
 * status too; SQLite: the write transaction is the lock.
 */
export async function whileConfigured(s: Store, id: string, write: (t: Store) => Promise<void>): Promise<boolean> {
  return s.tx(async (t) => {
    const { sources } = t.t;
    const q = t.db.select({ id: sources.id }).from(sources).where(eq(sources.id, id));
    if ((await (t.engine === "pg" ? q.for("share") : q)).length === 0) return false;
    await write(t);
    return true;
  });
}

/** A failed pass: keep the message (truncated to 1,000 characters) and its time, count it. */
export async function recordSourceError(s: Store, who: SourceIdentity, at: number, message: string): Promise<void> {
  return s.tx(async (t) => {
    const { sourceStatus: st } = t.t;
    await t.db
      .insert(st)
      .values({ ...who, lastErrorAt: at, lastError: message.slice(0, MAX_ERROR_CHARS), errorCount: 1, updatedAt: at })
      .onConflictDoUpdate({
        target: st.id,
        set: {
          kind: excluded("kind"),
          name: excluded("name"),
          lastErrorAt: excluded("last_error_at"),
          lastError: excluded("last_error"),
          errorCount: sql`${st.errorCount} + 1`,
          updatedAt: excluded("updated_at"),
        },
      });
  });
}

const PREFIX = "dropped_events:";

export type DroppedReport = { source: string; dropped: number; reportedAt: number };

/** Every sender that reported dropping events, most recent report first (at most 50). */
export async function droppedEventReports(store: Store): Promise<DroppedReport[]> {
  const t = store.t.settings;
  const rows = await store.db
    .select({ key: t.key, value: t.value, reportedAt: t.updatedAt })
    .from(t)
    .where(like(t.key, `${PREFIX}%`))
    .orderBy(desc(t.updatedAt))
    .limit(50);
  return rows.map((r) => ({ source: r.key.slice(PREFIX.length), dropped: Number(r.value), reportedAt: r.reportedAt }));
}
