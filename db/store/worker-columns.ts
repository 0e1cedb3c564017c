import { and, sql, type SQL } from "drizzle-orm";
import { bucketOf, fieldsOf, indexed, jsonArray, numbersOf, rawRows } from "./sql";
import type { Store } from "./store";
import { MAX_WORKERS, rollupScan, type RollupRead } from "./workers";

// Rollup reads for the worker charts as one row per worker whose bucket columns are aggregated in SQL (arrays as text,
// parsed once here): the all-workers chart reads 64 rows, not 64 × 120. The arrays come unordered (an ORDER BY inside
// the aggregates sorted each array apart, and cost SQLite more than the rest of the query) and are put in time order
// here, which costs one pass when they already are.

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
 * Bucket columns per worker from the rollup named, over its buckets overlapping [from, to), in buckets of `step` ms (a
 * whole number of rows; the rows themselves when the step is the rollup's own). In no order across workers. Only the
 * `charts` named are read (the other column comes back empty): each is a pair of integer sums per bucket, sent as
 * integers (cheaper for either engine to print than the doubles of their ratio) and divided here.
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
          t: jsonArray(s, sql`${m.minute}`),
          ...(util ? { a: jsonArray(s, sql`${m.kvActiveSum}`), b: jsonArray(s, sql`${m.kvTotalSum}`) } : {}),
          ...(hit ? { c: jsonArray(s, sql`${m.prefixHitDelta}`), d: jsonArray(s, sql`${m.prefixQueryDelta}`) } : {}),
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
        t: jsonArray(s, sql`${buckets.t}`),
        ...(util ? { a: jsonArray(s, sql`${buckets.a}`), b: jsonArray(s, sql`${buckets.b}`) } : {}),
        ...(hit ? { c: jsonArray(s, sql`${buckets.c}`), d: jsonArray(s, sql`${buckets.d}`) } : {}),
      })
      .from(buckets)
      .groupBy(buckets.workerId)
      .limit(MAX_WORKERS * 4);
  };
  const key = `rollupColumns.${resolution}.${one ? "one" : "all"}.${plain ? "rows" : step}.${charts.join("+")}`;
  const rows = await rawRows(s, key, build, { a: start, b: to, w: workerId });
  return rows.map((r) => {
    const arrays = JSON.parse(`[${r.slice(1).map((x) => numbersOf(s, x as string))}]`) as number[][];
    const t = arrays[0]!;
    const pair = (k: number) => ratios(arrays[k]!, arrays[k + 1]!);
    return inTimeOrder({
      workerId: r[0] as string,
      t,
      util: util ? pair(1) : [],
      hitRate: hit ? pair(util ? 3 : 1) : [],
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
