import { Column, is, sql, type SQL } from "drizzle-orm";
import type { Store } from "./store";

// SQL fragments a page query needs that the two dialects spell differently, and literals a GROUP BY must repeat
// verbatim. Everything else in db/store is plain drizzle over store.t.

/** An integer written into the SQL text (not a parameter): a GROUP BY can then repeat the expression exactly. */
export function lit(n: number): SQL {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer literal: ${n}`);
  return sql.raw(String(n));
}

/** `ts - ts % step`: the start of ts's bucket of `step` ms (epoch-aligned). */
export function bucketOf(column: SQL | SQL.Aliased | object, step: number): SQL<number> {
  return sql<number>`${column} - ${column} % ${lit(step)}`.mapWith(Number);
}

/** 1-based position of needle in text, 0 when absent (SQLite's instr, PostgreSQL's strpos). */
export function position(s: Store, text: SQL, needle: string): SQL<number> {
  return s.engine === "sqlite" ? sql`instr(${text}, ${needle})` : sql`strpos(${text}, ${needle})`;
}

/**
 * A table read through a named index on SQLite (INDEXED BY: its planner otherwise walks the primary key to group);
 * PostgreSQL's planner picks by statistics and has no such hint.
 */
export function indexed<T extends object>(s: Store, table: T, index: string): T {
  return s.engine === "sqlite" ? (sql`${table} INDEXED BY ${sql.identifier(index)}` as unknown as T) : table;
}

/** An aggregate or arithmetic result as a JS number (PostgreSQL returns numeric sums as strings). */
export function num(expr: SQL): SQL<number> {
  return expr.mapWith(Number) as SQL<number>;
}

/** Like num, null kept (an aggregate over no rows, or of nulls). */
export function numOrNull(expr: SQL): SQL<number | null> {
  return expr.mapWith((v: unknown) => (v === null ? null : Number(v))) as SQL<number | null>;
}

/**
 * Selected columns as SQL expressions decoded as the columns are: what a select from `indexed()` takes (drizzle
 * checks that a selected column's table is the query's, and an INDEXED BY source is SQL, not the table).
 */
export function fieldsOf<F extends Record<string, Column | SQL | SQL.Aliased>>(
  fields: F,
): {
  [K in keyof F]: F[K] extends Column
    ? SQL<F[K]["_"]["data"] | (F[K]["_"]["notNull"] extends true ? never : null)>
    : F[K];
} {
  const out: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(fields)) out[k] = is(f, Column) ? sql`${f}`.mapWith(f) : f;
  return out as never;
}
