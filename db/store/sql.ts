import type Database from "better-sqlite3";
import { Column, is, Placeholder, sql, type SQL } from "drizzle-orm";
import type postgres from "postgres";
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
export function position(s: Store, text: SQL, needle: string | Placeholder): SQL<number> {
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

type Built = { toSQL(): { sql: string; params: unknown[] } };
type Runner = (params: Record<string, unknown>) => Promise<unknown[][]>;
const compiled = new WeakMap<Store, Map<string, Runner>>();

/**
 * A query drizzle builds once per store (its parameters `sql.placeholder(name)`), run as rows of values in selection
 * order without drizzle's per-row mapping: for the reads that return thousands of rows or run once per worker, where
 * building the SQL, preparing it and mapping rows cost more than the query. Values are the driver's: numbers on SQLite;
 * on PostgreSQL int8 as numbers and numeric (sums of int8) as decimal strings, so callers take Number() of sums.
 */
export async function rawRows(
  s: Store,
  key: string,
  build: () => Built,
  params: Record<string, unknown> = {},
): Promise<unknown[][]> {
  let byKey = compiled.get(s);
  if (!byKey) compiled.set(s, (byKey = new Map()));
  let run = byKey.get(key);
  if (!run) {
    const q = build().toSQL();
    const bind = (values: Record<string, unknown>) =>
      q.params.map((p) => (is(p, Placeholder) ? values[(p as Placeholder).name] : p));
    const client = (s.db as unknown as { $client: unknown }).$client;
    if (s.engine === "sqlite") {
      const stmt = (client as Database.Database).prepare(q.sql).raw(true);
      run = async (values) => stmt.all(...(bind(values) as unknown[])) as unknown[][];
    } else {
      const pg = client as postgres.Sql;
      run = async (values) =>
        (await pg.unsafe(q.sql, bind(values) as never[], { prepare: true }).values()) as unknown[][];
    }
    byKey.set(key, run);
  }
  return run(params);
}

/**
 * A query run once as rows of values in selection order (rawRows without its statement cache, for a query whose
 * parameters are values rather than placeholders): tens of thousands of rows without drizzle's per-row objects.
 */
export async function valueRows(s: Store, query: Built): Promise<unknown[][]> {
  const q = query.toSQL();
  const client = (s.db as unknown as { $client: unknown }).$client;
  if (s.engine === "sqlite")
    return (client as Database.Database)
      .prepare(q.sql)
      .raw(true)
      .all(...q.params) as unknown[][];
  return (await (client as postgres.Sql).unsafe(q.sql, q.params as never[]).values()) as unknown[][];
}

/**
 * Pairs (t, v) ordered by t, then v, as an ORDER BY t, v would give them: sorting here costs a fraction of the
 * database's sort of the same rows into a temporary tree.
 */
export function sortedPairs(rows: readonly unknown[][]): { t: number; v: number }[] {
  const byT = new Map<number, number[]>();
  for (const r of rows) {
    const t = Number(r[0]);
    let vs = byT.get(t);
    if (!vs) byT.set(t, (vs = []));
    vs.push(Number(r[1]));
  }
  const out: { t: number; v: number }[] = [];
  for (const t of [...byT.keys()].sort((a, b) => a - b))
    for (const v of byT.get(t)!.sort((a, b) => a - b)) out.push({ t, v });
  return out;
}

/** Text ordered by its bytes on either engine (SQLite's default; PostgreSQL's database collation may differ). */
export function bytewise(s: Store, text: SQL | Column): SQL {
  return s.engine === "pg" ? sql`${text} COLLATE "C"` : sql`${text}`;
}

/**
 * PostgreSQL's cell of bytes aggregated over a group (`parts`: an expression of bytea per row), sent as base64 text:
 * a bytea is sent as hex, twice its size, and the workers chart's hour (64 rows of 1.9 KB) came to 245 KB a call. The
 * reply's size set the tail: 64 such rows took 1.4–1.6 ms at the median and 3.9–5.0 ms at p95 as hex, 0.5–0.9 and
 * 1.7–2.1 ms as base64 (docs/benchmarks.md). Read it with bytesOf.
 */
export function packedBytes(parts: SQL): SQL<string> {
  return sql<string>`encode(string_agg(${parts}, ''::bytea), 'base64')`;
}

/** A packedBytes cell as bytes (base64 text; the newlines PostgreSQL puts in every 76 characters are skipped). */
export function bytesOf(cell: unknown): Buffer {
  return Buffer.from(cell as string, "base64");
}

/**
 * The integers `value` takes over a group's rows, as one cell: SQLite's json_group_array (JSON text); PostgreSQL's
 * big-endian 64-bit integers packed in bytes (string_agg of int8send, as packedBytes). Printing the integers as text
 * was half of PostgreSQL's time on the workers chart's 7,680 buckets, and parsing it most of ours (json_agg had taken
 * twice as long again). Read it with integersOf. In no defined order, but every array of one group lists its rows in
 * the same order (the aggregates step through the group together), so arrays selected side by side line up. `value`
 * is never NULL and fits 53 bits (times in ms, sums).
 */
export function integerArray(s: Store, value: SQL): SQL<string> {
  return s.engine === "sqlite"
    ? sql<string>`json_group_array(${value})`
    : packedBytes(sql`int8send((${value})::bigint)`);
}

/** An integerArray's cell as numbers. */
export function integersOf(s: Store, cell: unknown): number[] {
  if (s.engine === "sqlite") return JSON.parse(cell as string) as number[];
  const b = bytesOf(cell);
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out = new Array<number>(b.byteLength >>> 3);
  for (let k = 0, i = 0; k < out.length; k++, i += 8) out[k] = v.getInt32(i) * 4294967296 + v.getUint32(i + 4);
  return out;
}
