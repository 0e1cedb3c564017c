import fs from "node:fs";
import { getTableColumns, getTableName, is, min, sql, Table, type Column } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import * as pgSchema from "../pg/schema";
import { RETENTION_TABLES, type RetentionTier } from "../sqlite/retention";
import * as sqliteSchema from "../sqlite/schema";
import type { Store } from "./store";

// What the Sources page says about the database on either engine: its size and the oldest row kept per retention table.

export type OldestKept = { table: string; label: string; tier: RetentionTier; oldest: number | null };
export type DatabaseSize = { fileBytes: number; walBytes: number };

/** Each engine's tables by their SQL name (a retention table the engine does not have is absent). */
const byName = (schema: Record<string, unknown>) =>
  new Map(
    Object.values(schema)
      .filter((x): x is Table => is(x, Table))
      .map((t) => [getTableName(t), t]),
  );
// The same seam as tables.ts: SQLite's tables are handed to queries typed as PostgreSQL's (their columns agree).
const TABLES = { pg: byName(pgSchema), sqlite: byName(sqliteSchema) } as unknown as Record<
  Store["engine"],
  Map<string, PgTable>
>;

function columnOf(table: PgTable, name: string): Column | undefined {
  return Object.values(getTableColumns(table)).find((c) => c.name === name);
}

/**
 * The oldest time (Unix ms) still kept in each retention table, null when it is empty or the engine has no such table
 * (one min() each). On PostgreSQL a partitioned table's min() reads each daily partition that is kept.
 */
export async function oldestKept(s: Store): Promise<OldestKept[]> {
  const out: OldestKept[] = [];
  for (const { table, column, tier, label } of RETENTION_TABLES) {
    const t = TABLES[s.engine].get(table);
    const c = t && columnOf(t, column);
    const oldest = t && c ? ((await s.db.select({ oldest: min(c) }).from(t))[0]?.oldest ?? null) : null;
    out.push({ table, label, tier, oldest: oldest === null ? null : Number(oldest) });
  }
  return out;
}

const sizeOf = (file: string) => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
};

/**
 * Bytes the database takes. PostgreSQL: pg_database_size of the current database (its WAL is the server's, shown as
 * 0). SQLite: the file at `sqliteFile` and its write-ahead log (0 for an in-memory database or a missing file).
 */
export async function databaseSize(s: Store, sqliteFile: string | null): Promise<DatabaseSize> {
  if (s.engine === "pg") {
    const rows = await s.db
      .select({ bytes: sql<number>`pg_database_size(current_database())`.mapWith(Number) })
      .from(sql`(SELECT 1) AS one`);
    return { fileBytes: rows[0]?.bytes ?? 0, walBytes: 0 };
  }
  if (!sqliteFile || sqliteFile === ":memory:") return { fileBytes: 0, walBytes: 0 };
  return { fileBytes: sizeOf(sqliteFile), walBytes: sizeOf(`${sqliteFile}-wal`) };
}
