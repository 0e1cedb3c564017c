import { sql, type SQL } from "drizzle-orm";
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

/** a / b as a double, NULL unless b > 0: the same IEEE division JS does on the same integer sums. */
function ratio(a: SQL, b: SQL): SQL {
  return sql`CASE WHEN ${b} > 0 THEN CAST(${a} AS double precision) / CAST(${b} AS double precision) END`;
}

/**
 * Bucket columns per worker from the rollup named, over its buckets overlapping [from, to), in buckets of `step` ms (a
 * whole number of rows; the rows themselves when the step is the rollup's own). In no order across workers.
 */
export async function rollupColumns(s: Store, opts: RollupRead): Promise<WorkerColumns[]> {
  const { to, step, workerId, resolution } = opts;
  const { m, index, align, one, range, start } = rollupScan(s, opts);
  // One worker: its primary key (worker, bucket) keeps the scan to it; all: the bucket-start index to the range.
  const source = one ? m : indexed(s, m, index);
  const plain = step === align;
  const build = () => {
    if (plain) {
      // At the rollup's own step the rows are the buckets: aggregated straight into each worker's columns.
      return s.db
        .select({
          workerId: fieldsOf({ w: m.workerId }).w,
          t: jsonArray(s, sql`${m.minute}`),
          util: jsonArray(s, ratio(sql`${m.kvActiveSum}`, sql`${m.kvTotalSum}`)),
          hitRate: jsonArray(s, ratio(sql`${m.prefixHitDelta}`, sql`${m.prefixQueryDelta}`)),
        })
        .from(source)
        .where(range)
        .groupBy(m.workerId)
        .limit(MAX_WORKERS * 4);
    }
    const buckets = s.db
      .select({
        workerId: fieldsOf({ w: m.workerId }).w.as("worker"),
        t: bucketOf(m.minute, step).as("t"),
        util: ratio(sql`sum(${m.kvActiveSum})`, sql`sum(${m.kvTotalSum})`).as("util"),
        hitRate: ratio(sql`sum(${m.prefixHitDelta})`, sql`sum(${m.prefixQueryDelta})`).as("hit_rate"),
      })
      .from(source)
      .where(range)
      .groupBy(m.workerId, bucketOf(m.minute, step))
      .as("buckets");
    return s.db
      .select({
        workerId: buckets.workerId,
        t: jsonArray(s, sql`${buckets.t}`),
        util: jsonArray(s, sql`${buckets.util}`),
        hitRate: jsonArray(s, sql`${buckets.hitRate}`),
      })
      .from(buckets)
      .groupBy(buckets.workerId)
      .limit(MAX_WORKERS * 4);
  };
  const key = `rollupColumns.${resolution}.${one ? "one" : "all"}.${plain ? "rows" : step}`;
  const rows = await rawRows(s, key, build, { a: start, b: to, w: workerId });
  return rows.map((r) => {
    const [t, util, hitRate] = JSON.parse(
      `[${numbersOf(s, r[1] as string)},${numbersOf(s, r[2] as string)},${numbersOf(s, r[3] as string)}]`,
    ) as [number[], (number | null)[], (number | null)[]];
    return inTimeOrder({ workerId: r[0] as string, t, util, hitRate });
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
    util: order.map((k) => c.util[k]!),
    hitRate: order.map((k) => c.hitRate[k]!),
  };
}
