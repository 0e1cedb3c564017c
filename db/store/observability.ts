import { asc, desc, eq, gt, sql } from "drizzle-orm";
import { bigint, integer as pgInteger, pgTable, text as pgText } from "drizzle-orm/pg-core";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { attrStatePg } from "../pg/schema";
import { attrState } from "../sqlite/schema";
import { databaseSize, type DatabaseSize } from "./sources-storage";
import type { Store } from "./store";

// Rows for Switchyard's own metrics, read at scrape time on either engine. Every list is bounded.

const LIMIT = 500;

const pgRequests = pgTable("requests", {
  rid: bigint("rid", { mode: "number" }).notNull(),
  id: pgText("id").notNull(),
  arrivedAt: bigint("arrived_at", { mode: "number" }).notNull(),
});
const sqliteRequests = sqliteTable("requests", {
  rid: integer("rowid").notNull(),
  id: text("id").notNull(),
  arrivedAt: integer("arrived_at").notNull(),
});

/**
 * The attribution job's tables as PostgreSQL's types: its saved state (the requests cursor under key "requests") and
 * requests by insertion number (SQLite's rowid, PostgreSQL's rid).
 */
export function attributionTables(s: Store) {
  return s.engine === "pg"
    ? { state: attrStatePg, requests: pgRequests }
    : { state: attrState as unknown as typeof attrStatePg, requests: sqliteRequests as unknown as typeof pgRequests };
}

/** How far the attribution job has read requests: its cursor (an insertion number), the newest request and the first one after the cursor. */
export type AttributionProgress = {
  cursor: number;
  newestRowid: number | null;
  newestArrivedAt: number | null;
  firstPendingArrivedAt: number | null;
};

/** The attribution job's progress (three indexed lookups). */
export async function attributionProgress(s: Store): Promise<AttributionProgress> {
  const { state, requests } = attributionTables(s);
  const [saved] = await s.db.select({ value: state.value }).from(state).where(eq(state.key, "requests"));
  const cursor = saved?.value ?? 0;
  const [newest] = await s.db
    .select({ rid: requests.rid, arrivedAt: requests.arrivedAt })
    .from(requests)
    .orderBy(desc(requests.rid))
    .limit(1);
  const [pending] = await s.db
    .select({ arrivedAt: requests.arrivedAt })
    .from(requests)
    .where(gt(requests.rid, cursor))
    .orderBy(asc(requests.rid))
    .limit(1);
  return {
    cursor,
    newestRowid: newest?.rid ?? null,
    newestArrivedAt: newest?.arrivedAt ?? null,
    firstPendingArrivedAt: pending?.arrivedAt ?? null,
  };
}

/** Rollout state per policy target and kind. */
export async function rolloutStates(s: Store): Promise<{ targetId: string; kind: string; state: string }[]> {
  const r = s.t.rolloutStatus;
  return s.db
    .select({ targetId: r.targetId, kind: r.kind, state: r.state })
    .from(r)
    .orderBy(asc(r.targetId), asc(r.kind))
    .limit(LIMIT);
}

/** Error and success record of each source (times Unix ms). */
export async function sourceHealth(
  s: Store,
): Promise<
  { id: string; kind: string; errorCount: number; lastSuccessAt: number | null; lastErrorAt: number | null }[]
> {
  const t = s.t.sourceStatus;
  return s.db
    .select({
      id: t.id,
      kind: t.kind,
      errorCount: t.errorCount,
      lastSuccessAt: t.lastSuccessAt,
      lastErrorAt: t.lastErrorAt,
    })
    .from(t)
    .orderBy(asc(t.id))
    .limit(LIMIT);
}

/**
 * Bytes the database takes. SQLite: pages in use and free of the main file (page_count × page_size, so pages still in
 * the write-ahead log count) and the log's file at `sqliteFile`; PostgreSQL: pg_database_size, its WAL shown as 0.
 */
export async function databaseBytes(s: Store, sqliteFile: string | null): Promise<DatabaseSize> {
  if (s.engine === "pg") return databaseSize(s, null);
  const [row] = await s.db
    .select({ bytes: sql<number>`page_count * page_size`.mapWith(Number) })
    .from(sql`pragma_page_count(), pragma_page_size()`);
  const { walBytes } = await databaseSize(s, sqliteFile);
  return { fileBytes: row?.bytes ?? 0, walBytes };
}
