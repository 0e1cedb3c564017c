import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import type postgres from "postgres";
import * as schema from "./schema";

// Multi-row upserts of accumulated rows (rollups, per-worker state): one prepared statement per table, every column
// one array parameter, unnested. The keys of one call must be distinct (a row is affected at most once per statement).

/** How a stored row takes a new row's value for a non-key column. */
export type Merge = "add" | "max" | "min" | "set";
export type UpsertColumn = { name: string; merge?: Merge };
export type UpsertPlan = { table: string; columns: string[]; sql: string };
export type UpsertValue = string | number | null;

const pgTables = new Map<string, PgTable>(
  Object.values(schema).map((t) => [getTableConfig(t as PgTable).name, t as PgTable]),
);

const MERGE: Record<Merge, (t: string, c: string) => string> = {
  add: (t, c) => `"${c}" = ${t}."${c}" + excluded."${c}"`,
  // PostgreSQL's greatest/least skip nulls: a null on either side keeps the other, as SQLite's coalesce(max(a, b), a, b).
  max: (t, c) => `"${c}" = greatest(${t}."${c}", excluded."${c}")`,
  min: (t, c) => `"${c}" = least(${t}."${c}", excluded."${c}")`,
  set: (_t, c) => `"${c}" = excluded."${c}"`,
};

/** The upsert of `table`: `keys` are its conflict target, `columns` the others with how each merges. */
export function upsertPlan(table: string, keys: string[], columns: UpsertColumn[]): UpsertPlan {
  const t = pgTables.get(table);
  if (!t) throw new Error(`no PostgreSQL table ${table}`);
  const types = new Map(getTableConfig(t).columns.map((c) => [c.name, c.getSQLType()]));
  const all = [...keys, ...columns.map((c) => c.name)];
  const params = all.map((c, i) => {
    const type = types.get(c);
    if (!type) throw new Error(`PostgreSQL table ${table} has no column ${c}`);
    return `$${i + 1}::${type}[]`;
  });
  const sets = columns.map((c) => MERGE[c.merge ?? "add"](`"${table}"`, c.name));
  const cols = all.map((c) => `"${c}"`).join(", ");
  return {
    table,
    columns: all,
    sql: `INSERT INTO "${table}" (${cols}) SELECT * FROM unnest(${params.join(", ")})
      ON CONFLICT (${keys.map((k) => `"${k}"`).join(", ")}) DO UPDATE SET ${sets.join(", ")}`,
  };
}

/** One value as an element of a PostgreSQL array literal (strings always quoted). */
function element(v: UpsertValue): string {
  if (v === null) return "NULL";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`not a finite number: ${v}`);
    return String(v);
  }
  if (v.includes("\u0000")) throw new Error("PostgreSQL text cannot hold U+0000 (a NUL character)");
  return `"${v.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** Upsert rows (values in the plan's column order: keys first); nothing is sent for no rows. */
export async function upsertRows(tx: postgres.Sql, plan: UpsertPlan, rows: readonly UpsertValue[][]): Promise<void> {
  if (rows.length === 0) return;
  const width = plan.columns.length;
  const cols: string[][] = Array.from({ length: width }, () => []);
  for (const row of rows) {
    if (row.length !== width) throw new Error(`${plan.table}: row of ${row.length} values for ${width} columns`);
    for (let c = 0; c < width; c++) cols[c]!.push(element(row[c]!));
  }
  await tx.unsafe(
    plan.sql,
    cols.map((c) => `{${c.join(",")}}`),
    { prepare: true },
  );
}
