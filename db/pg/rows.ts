import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import type { IngestKind } from "../rows/ingest";
import { tables } from "../queries/ingest-rows";
import * as schema from "../pg-schema";

// The multi-row inserts of PostgreSQL's ingest: SQLite's row shapes (db/queries/ingest-rows.ts, the same column order),
// sent as one array per column and unnested, so a batch of any size is one prepared statement per table.

export type Value = string | number | Buffer | null;
export type InsertPlan = { table: string; columns: string[]; sql: string; partitioned: boolean };

const pgTables = new Map<string, PgTable>(
  Object.values(schema).map((t) => [getTableConfig(t as PgTable).name, t as PgTable]),
);

/** Column name → SQL type of a PostgreSQL table of the ingest (throws for a table the pg schema lacks). */
function columnTypes(table: string): Map<string, string> {
  const t = pgTables.get(table);
  if (!t) throw new Error(`no PostgreSQL table ${table}`);
  return new Map(getTableConfig(t).columns.map((c) => [c.name, c.getSQLType()]));
}

/** The INSERT of a table given SQLite's column order; rows already stored (any ts, for partitioned tables) are skipped. */
function plan(table: string, columns: string[], partitioned: boolean): InsertPlan {
  const types = columnTypes(table);
  const casts = columns.map((c, i) => {
    const type = types.get(c);
    if (!type) throw new Error(`PostgreSQL table ${table} has no column ${c}`);
    return `$${i + 1}::${type}[]`;
  });
  const cols = columns.map((c) => `"${c}"`).join(", ");
  const notHeld = partitioned ? ` WHERE NOT EXISTS (SELECT 1 FROM "${table}" x WHERE x.id = v.id)` : "";
  return {
    table,
    columns,
    partitioned,
    sql: `INSERT INTO "${table}" (${cols}) SELECT * FROM unnest(${casts.join(", ")}) AS v(${cols})${notHeld} ON CONFLICT DO NOTHING RETURNING id`,
  };
}

/** SQLite's column list of an ingest table, read from its INSERT (db/queries/ingest-rows.ts). */
function sqliteColumns(sql: string): { table: string; columns: string[] } {
  const m = /^INSERT INTO (\w+) \(([^)]+)\)/.exec(sql);
  if (!m) throw new Error(`unexpected ingest insert: ${sql.slice(0, 80)}`);
  return { table: m[1]!, columns: m[2]!.split(",").map((c) => c.trim()) };
}

/** The insert plan per event kind (kinds sharing a table share its plan). */
export function insertPlans(partitioned: (table: string) => boolean): Record<IngestKind, InsertPlan> {
  const byTable = new Map<string, InsertPlan>();
  const out = {} as Record<IngestKind, InsertPlan>;
  for (const kind of Object.keys(tables) as IngestKind[]) {
    const { table, columns } = sqliteColumns(tables[kind].sql);
    let p = byTable.get(table);
    if (!p) byTable.set(table, (p = plan(table, columns, partitioned(table))));
    out[kind] = p;
  }
  return out;
}

/** One value as an element of a PostgreSQL array literal (strings always quoted; bytes as \x hex). */
function element(v: Value | boolean): string {
  if (v === null) return "NULL";
  if (typeof v === "number") return String(v);
  if (typeof v === "boolean") return v ? "t" : "f";
  const s = Buffer.isBuffer(v) ? `\\x${v.toString("hex")}` : v;
  return `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** Rows (all of one plan's column order) as one array literal per column. */
export function columnArrays(rows: readonly Value[][], width: number): string[] {
  const cols: string[][] = Array.from({ length: width }, () => new Array<string>(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (row.length !== width) throw new Error(`row of ${row.length} values for ${width} columns`);
    for (let c = 0; c < width; c++) cols[c]![r] = element(row[c]!);
  }
  return cols.map((c) => `{${c.join(",")}}`);
}
