import { asc, sql } from "drizzle-orm";
import { integer as pgInteger, pgTable, text as pgText } from "drizzle-orm/pg-core";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Store } from "./store";

// The clusters table on either engine (rows written by ingest, db/sqlite/clusters.ts and db/pg/clusters.ts), read for
// /metrics and for the names pages and policies offer. Narrowed to the columns read: the two schemas differ in
// SQLite's optional rowid key on insert.

const pgClusters = pgTable("clusters", { id: pgInteger("id").notNull(), name: pgText("name").notNull() });
const sqliteClusters = sqliteTable("clusters", { id: integer("id").notNull(), name: text("name").notNull() });

/** At most this many names are read (the store keeps at most MAX_CLUSTERS, lib/memory-bounds.ts). */
const MAX_NAMES = 1_024;

const tableOf = (s: Store) => (s.engine === "pg" ? pgClusters : (sqliteClusters as unknown as typeof pgClusters));

/** Clusters the store holds (the default one included). */
export async function clusterCount(s: Store): Promise<number> {
  const [row] = await s.db.select({ n: sql<number>`count(*)` }).from(tableOf(s));
  return Number(row?.n ?? 0);
}

/** The names of the clusters that sent telemetry (and "default"), in name order. */
export async function clusterNames(s: Store): Promise<string[]> {
  const c = tableOf(s);
  const rows = await s.db.select({ name: c.name }).from(c).orderBy(asc(c.name)).limit(MAX_NAMES);
  return rows.map((r) => r.name);
}

/** Every cluster's name by its id (as event rows carry it). */
export async function clusterNamesById(s: Store): Promise<Map<number, string>> {
  const c = tableOf(s);
  const rows = await s.db.select({ id: c.id, name: c.name }).from(c).limit(MAX_NAMES);
  return new Map(rows.map((r) => [r.id, r.name]));
}
