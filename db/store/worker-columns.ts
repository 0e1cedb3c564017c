import { and, sql, type SQL } from "drizzle-orm";
import { bucketOf, fieldsOf, indexed, integerArray, integersOf, rawRows } from "./sql";
import type { Store } from "./store";
import { MAX_WORKERS, rollupScan, type RollupRead } from "./workers";

// Rollup reads for the worker charts as one row per worker whose bucket columns are aggregated in SQL (packed arrays,
// see integerArray and ratioColumn): the all-workers chart reads 64 rows, not 64 × 120. The arrays come unordered (an
// ORDER BY inside the aggregates sorted each array apart, and cost SQLite more than the rest of the query) and are put
// in time order here, which costs one pass when they already are.

/**
 * One worker's buckets, in time order: `t` the bucket starts (Unix ms; buckets without rows are absent), `util` KV
 * active over total blocks (null without capacity), `hitRate` prefix hit over queried tokens (null: none queried).
 */
export type WorkerColumns = {
  workerId: string;
  t: number[];
  util: (number | null)[];
  hitRate: (number | null)[];
};

/** The charts the columns are read for: KV utilization and prefix hit rate. */
export const SERIES_CHARTS = ["util", "hitRate"] as const;
export type SeriesChart = (typeof SERIES_CHARTS)[number];

/**
 * The rollup's workers, as a subquery: a loose index scan of its (worker, bucket) primary key, one seek per worker
 * (the next id above the last), so that a read by worker can name each one without scanning the range for them.
 */
function workersOf(m: ReturnType<typeof rollupScan>["m"]): SQL {
  return sql`WITH RECURSIVE w(id) AS (SELECT min(${m.workerId}) FROM ${m} UNION ALL SELECT (SELECT min(${m.workerId}) FROM ${m} WHERE ${m.workerId} > w.id) FROM w WHERE w.id IS NOT NULL) SELECT id FROM w`;
}

/** a[i] / b[i] as doubles, null unless b[i] > 0 (the sums are integers: the same division SQL would do). */
function ratios(a: readonly number[], b: readonly number[]): (number | null)[] {
  const out = new Array<number | null>(a.length);
  for (let i = 0; i < a.length; i++) out[i] = b[i]! > 0 ? a[i]! / b[i]! : null;
  return out;
}

/**
 * How a chart's column, `num` over `den` per bucket (null unless `den` > 0), is selected (`width` cells of the row)
 * and read. SQLite sends the two integer sums (printing them costs it less than printing their ratio) and they are
 * divided here; PostgreSQL divides (the same IEEE division of the same integers, below 2^53) and sends one packed
 * array of doubles (NaN for none), a third less of its per-row work than two integer arrays.
 */
function ratioColumn(s: Store): {
  width: number;
  cells: (num: SQL, den: SQL) => SQL[];
  read: (cells: unknown[]) => (number | null)[];
} {
  if (s.engine === "sqlite")
    return {
      width: 2,
      cells: (num, den) => [integerArray(s, num), integerArray(s, den)],
      read: ([a, b]) => ratios(integersOf(s, a), integersOf(s, b)),
    };
  return {
    width: 1,
    cells: (num, den) => [
      sql`string_agg(float8send(CASE WHEN (${den}) > 0 THEN (${num})::float8 / (${den})::float8 ELSE 'NaN'::float8 END), ''::bytea)`,
    ],
    read: ([cell]) => {
      const b = cell as Uint8Array;
      const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
      const out = new Array<number | null>(b.byteLength >>> 3);
      for (let k = 0; k < out.length; k++) {
        const x = v.getFloat64(k * 8);
        out[k] = Number.isNaN(x) ? null : x;
      }
      return out;
    },
  };
}

/**
 * Bucket columns per worker from the rollup named, over its buckets overlapping [from, to), in buckets of `step` ms (a
 * whole number of rows; the rows themselves when the step is the rollup's own). In no order across workers. Only the
 * `charts` named are read (the other column comes back empty): each is a ratio of two integer sums per bucket
 * (ratioColumn).
 */
export async function rollupColumns(
  s: Store,
  opts: RollupRead & { charts?: readonly SeriesChart[] },
): Promise<WorkerColumns[]> {
  const { to, step, workerId, resolution } = opts;
  const charts = opts.charts ?? SERIES_CHARTS;
  const util = charts.includes("util");
  const hit = charts.includes("hitRate");
  const { m, index, byWorker, align, one, range, start } = rollupScan(s, opts);
  const plain = step === align;
  // The charts' cells over the sums named: KV active over total blocks, prefix hit over queried tokens.
  const ratio = ratioColumn(s);
  const cellsOf = (active: SQL, total: SQL, hits: SQL, queried: SQL) =>
    Object.fromEntries(
      [...(util ? ratio.cells(active, total) : []), ...(hit ? ratio.cells(hits, queried) : [])].map((c, k) => [
        `c${k}`,
        c,
      ]),
    );
  const build = () => {
    if (plain) {
      // At the rollup's own step the rows are the buckets: aggregated straight into each worker's columns. Where the
      // rollup has a (worker, bucket, …) index, each worker's range is read from it in order (one worker: that range
      // alone), so nothing is sorted to group; else the bucket-start index to the range, or one worker's primary key.
      const source = byWorker ? indexed(s, m, byWorker) : one ? m : indexed(s, m, index);
      const where = byWorker && !one ? and(sql`${m.workerId} IN (${workersOf(m)})`, range) : range;
      return s.db
        .select({
          workerId: fieldsOf({ w: m.workerId }).w,
          t: integerArray(s, sql`${m.minute}`),
          ...cellsOf(sql`${m.kvActiveSum}`, sql`${m.kvTotalSum}`, sql`${m.prefixHitDelta}`, sql`${m.prefixQueryDelta}`),
        })
        .from(source)
        .where(where)
        .groupBy(m.workerId)
        .limit(MAX_WORKERS * 4);
    }
    // One worker: its primary key (worker, bucket) keeps the scan to it; all: the bucket-start index to the range.
    const buckets = s.db
      .select({
        workerId: fieldsOf({ w: m.workerId }).w.as("worker"),
        t: bucketOf(m.minute, step).as("t"),
        a: sql`sum(${m.kvActiveSum})`.as("a"),
        b: sql`sum(${m.kvTotalSum})`.as("b"),
        c: sql`sum(${m.prefixHitDelta})`.as("c"),
        d: sql`sum(${m.prefixQueryDelta})`.as("d"),
      })
      .from(one ? m : indexed(s, m, index))
      .where(range)
      .groupBy(m.workerId, bucketOf(m.minute, step))
      .as("buckets");
    return s.db
      .select({
        workerId: buckets.workerId,
        t: integerArray(s, sql`${buckets.t}`),
        ...cellsOf(sql`${buckets.a}`, sql`${buckets.b}`, sql`${buckets.c}`, sql`${buckets.d}`),
      })
      .from(buckets)
      .groupBy(buckets.workerId)
      .limit(MAX_WORKERS * 4);
  };
  const key = `rollupColumns.${resolution}.${one ? "one" : "all"}.${plain ? "rows" : step}.${charts.join("+")}`;
  const rows = await rawRows(s, key, build, { a: start, b: to, w: workerId });
  const utilCells = util ? ratio.width : 0;
  return rows.map((r) => {
    const cells = r.slice(2);
    return inTimeOrder({
      workerId: r[0] as string,
      t: integersOf(s, r[1]),
      util: util ? ratio.read(cells.slice(0, utilCells)) : [],
      hitRate: hit ? ratio.read(cells.slice(utilCells)) : [],
    });
  });
}

/** A worker's columns sorted by bucket start (the same object when they already are). */
export function inTimeOrder(c: WorkerColumns): WorkerColumns {
  const { t } = c;
  let i = 1;
  while (i < t.length && t[i - 1]! < t[i]!) i++;
  if (i >= t.length) return c;
  const order = t.map((_, k) => k).sort((a, b) => t[a]! - t[b]!);
  return {
    workerId: c.workerId,
    t: order.map((k) => t[k]!),
    util: c.util.length ? order.map((k) => c.util[k]!) : [],
    hitRate: c.hitRate.length ? order.map((k) => c.hitRate[k]!) : [],
  };
}
