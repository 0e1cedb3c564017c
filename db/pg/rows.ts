import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import { is } from "drizzle-orm";
import { getTableConfig as getSqliteTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { IngestKind } from "../rows/ingest";
import { tables } from "../ingest/rows";
import * as schema from "./schema";
import * as sqliteSchema from "../sqlite/schema";

// The multi-row inserts of PostgreSQL's ingest: SQLite's row shapes (db/ingest/rows.ts, the same column order),
// sent as one array per column and unnested, so a batch of any size is one prepared statement per table.

export type Value = string | number | Buffer | null;
export type InsertPlan = {
  table: string;
  columns: string[];
  /** Per value of a row: bytea (sent as a slice of the bytes parameter). */
  bytes: boolean[];
  sql: string;
  partitioned: boolean;
  /** The column a stored row is known by: id, or id_key (kv_events: the event id's 48-bit hash, as on SQLite). */
  key: "id" | "id_key";
  /**
   * A stored row is known by its key and ts together (SQLite's unique (ts, id) index: worker samples, decisions, tools,
   * reasoning spans, KV events): the same id at another ts is a new event. Else by its key alone, at any ts.
   */
  withTs: boolean;
};

const pgTables = new Map<string, PgTable>(
  Object.values(schema).map((t) => [getTableConfig(t as PgTable).name, t as PgTable]),
);

/** Column name → SQL type of a PostgreSQL table of the ingest (throws for a table the pg schema lacks). */
function columnTypes(table: string): Map<string, string> {
  const t = pgTables.get(table);
  if (!t) throw new Error(`no PostgreSQL table ${table}`);
  return new Map(getTableConfig(t).columns.map((c) => [c.name, c.getSQLType()]));
}

const sqliteTables = new Map<string, SQLiteTable>(
  (Object.values(sqliteSchema) as unknown[])
    .filter((t): t is SQLiteTable => is(t, SQLiteTable))
    .map((t) => [getSqliteTableConfig(t).name, t]),
);

/** Whether SQLite keys a table's events by id and ts together: its id column (if any) is not the primary key alone. */
function keyedWithTs(table: string): boolean {
  const t = sqliteTables.get(table);
  if (!t) throw new Error(`no SQLite table ${table}`);
  const id = getSqliteTableConfig(t).columns.find((c) => c.name === "id");
  return !id?.primary;
}

/**
 * The INSERT of a table given SQLite's column order; a row already stored is skipped: by its key and ts (`withTs`),
 * else by its key at any ts (a NOT EXISTS over every partition, for partitioned tables).
 * Every column is one array parameter, except bytea columns: those are slices (offset and length arrays) of one
 * bytes parameter, last, because PostgreSQL parses a bytea[] literal several times slower than it slices one value.
 */
function plan(table: string, columns: string[], partitioned: boolean): InsertPlan {
  const types = columnTypes(table);
  const unnested: string[] = [];
  const names: string[] = [];
  const selected: string[] = [];
  const bytes: boolean[] = [];
  for (const c of columns) {
    const type = types.get(c);
    if (!type) throw new Error(`PostgreSQL table ${table} has no column ${c}`);
    const isBytes = type === "bytea";
    bytes.push(isBytes);
    if (isBytes) {
      unnested.push(`$${unnested.length + 1}::int4[]`, `$${unnested.length + 2}::int4[]`);
      names.push(`"${c}_o"`, `"${c}_n"`);
      const blob = `$BLOB${bytes.filter(Boolean).length - 1}$`;
      const own = `CASE WHEN v."${c}_n" >= 0 THEN substring(${blob} from v."${c}_o" for v."${c}_n") END`;
      selected.push(own);
    } else {
      unnested.push(`$${unnested.length + 1}::${type}[]`);
      names.push(`"${c}"`);
      selected.push(`v."${c}"`);
    }
  }
  // Each bytea column's bytes: one base64 parameter, decoded once per statement (an uncorrelated subquery is an
  // InitPlan: its value is kept as a parameter, not computed per row). The driver would send a bytea parameter as hex.
  const blobs = bytes.filter(Boolean).map((_, j) => `(SELECT decode($${unnested.length + 1 + j}::text, 'base64'))`);
  const cols = columns.map((c) => `"${c}"`).join(", ");
  const key = columns.includes("id_key") ? "id_key" : "id";
  const withTs = keyedWithTs(table);
  const notHeld =
    partitioned && !withTs ? ` WHERE NOT EXISTS (SELECT 1 FROM "${table}" x WHERE x.${key} = v.${key})` : "";
  // A requests row naming its chain base (db/pg/chains.ts) says whether that row is there: named rows are read or
  // inserted by an earlier statement of the transaction, so false only if it was deleted meanwhile. A scalar subquery
  // with LIMIT, one primary-key lookup per row: as EXISTS, the generic plan hashed the whole table (see rows' plans).
  const returned =
    (withTs ? `${key}::text || ' ' || ts::text` : `${key}::text`) +
    (table === "requests"
      ? ` AS id, chain_base IS NULL OR coalesce((SELECT true FROM requests b WHERE b.id = "requests".chain_base LIMIT 1), false) AS linked`
      : " AS id");
  return {
    table,
    columns,
    bytes,
    partitioned,
    key,
    withTs,
    sql: `INSERT INTO "${table}" (${cols}) SELECT ${selected.join(", ").replace(/\$BLOB(\d+)\$/g, (_, j: string) => blobs[Number(j)]!)} FROM unnest(${unnested.join(", ")}) AS v(${names.join(", ")})${notHeld} ON CONFLICT DO NOTHING RETURNING ${returned}`,
  };
}

/** SQLite's column list of an ingest table, read from its INSERT (db/ingest/rows.ts). */
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

/** What an array literal's quoted string must escape, and what PostgreSQL text cannot hold. */
const SPECIAL = /[\\"\u0000]/;

/** One value as an element of a PostgreSQL array literal (strings always quoted). */
function element(v: Value | boolean): string {
  if (v === null) return "NULL";
  if (typeof v === "number") return String(v);
  if (typeof v === "boolean") return v ? "t" : "f";
  if (Buffer.isBuffer(v)) throw new Error("bytes belong in a bytea column");
  // One scan for the usual string (ids, names): 40 against 135 ns a value for the three scans below.
  if (!SPECIAL.test(v)) return `"${v}"`;
  if (v.includes("\u0000")) throw new Error("PostgreSQL text cannot hold U+0000 (a NUL character)");
  return `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * A plan's parameters for rows in its column order: one array literal per column; a bytea column as offsets and
 * lengths into its own bytes, sent last as base64 (a third less than the driver's hex, and no copy of the bytes first).
 */
export function planParams(plan: InsertPlan, rows: readonly Value[][]): string[] {
  const width = plan.bytes.length;
  const cols: string[][] = [];
  const chunks: Buffer[][] = [];
  const sizes: number[] = [];
  for (let c = 0; c < width; c++) {
    cols.push(...(plan.bytes[c] ? [[], []] : [[]]));
    if (plan.bytes[c]) (chunks.push([]), sizes.push(0));
  }
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (row.length !== width) throw new Error(`row of ${row.length} values for ${width} columns`);
    for (let c = 0, k = 0, j = 0; c < width; c++) {
      const v = row[c]!;
      if (!plan.bytes[c]) {
        cols[k++]!.push(element(v));
        continue;
      }
      if (v !== null && !Buffer.isBuffer(v)) throw new Error(`column ${plan.columns[c]} takes bytes`);
      cols[k++]!.push(String(sizes[j]! + 1));
      cols[k++]!.push(v === null ? "-1" : String(v.length));
      if (v !== null) {
        chunks[j]!.push(v);
        sizes[j]! += v.length;
      }
      j++;
    }
  }
  const params = cols.map((c) => `{${c.join(",")}}`);
  for (let j = 0; j < chunks.length; j++) params.push(Buffer.concat(chunks[j]!, sizes[j]).toString("base64"));
  return params;
}
