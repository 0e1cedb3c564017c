import { and, eq, gt, gte, lt, sql, type SQL } from "drizzle-orm";
import { workerChart30s, workerChartSeal } from "../pg/schema/rollups";
import { CHART_BUCKET_MS, CHART_CHUNK_MS, CHART_RESOLUTION } from "../pg/chart-chunks";
import { bucketOf, bytesOf, fieldsOf, indexed, integerArray, integersOf, packedBytes, rawRows } from "./sql";
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

/**
 * `column` is one of a list of worker keys given as the placeholder `k` (a JSON array of strings): a scope's workers.
 * The same on both engines, and one prepared statement for any list.
 */
function inWorkerList(s: Store, column: SQL): SQL {
  const k = sql.placeholder("k");
  return s.engine === "pg"
    ? sql`${column} IN (SELECT jsonb_array_elements_text(${k}::jsonb))`
    : sql`${column} IN (SELECT value FROM json_each(${k}))`;
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
    cells: (num, den) => [packedBytes(ratioBytes(num, den))],
    read: ([cell]) => {
      const b = bytesOf(cell);
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
 * One bucket's ratio on PostgreSQL as 8 bytes: num / den as a big-endian double, NaN unless den > 0 (as the chart
 * chunks pack it: db/pg/chart-chunks.ts).
 */
function ratioBytes(num: SQL, den: SQL): SQL {
  return sql`float8send(CASE WHEN (${den}) > 0 THEN (${num})::float8 / (${den})::float8 ELSE 'NaN'::float8 END)`;
}

/**
 * PostgreSQL's read of the 30-second rollup at its own step: the packed chart chunks before the sealed horizon
 * (db/pg/chart-chunks.ts; whole chunks overlapping the range, trimmed to it by the caller) and the rollup's rows from
 * the horizon on, as one union aggregated per worker. Placeholders: `a` the range's first bucket, `b` its end, `c` the
 * first bucket less a chunk (chunks starting after it overlap the range), `w` the one worker (with `one`).
 */
function chunkedColumns(
  s: Store,
  m: ReturnType<typeof rollupScan>["m"],
  opts: { util: boolean; hit: boolean; one: boolean; kept: boolean },
) {
  const { util, hit, one, kept } = opts;
  const [c, seal] = [workerChart30s, workerChartSeal];
  const horizon = sql`coalesce((SELECT ${seal.sealedUntil} FROM ${seal} WHERE ${seal.resolution} = ${CHART_RESOLUTION}), 0)`;
  const [a, b, c0, w] = [sql.placeholder("a"), sql.placeholder("b"), sql.placeholder("c"), sql.placeholder("w")];
  const part = (w: SQL, t: SQL, u: SQL, h: SQL) => ({
    w: w.as("w"),
    t: t.as("t"),
    ...(util ? { u: u.as("u") } : {}),
    ...(hit ? { h: h.as("h") } : {}),
  });
  const packed = s.db
    .select(part(sql`${c.workerId}`, sql`${c.t}`, sql`${c.util}`, sql`${c.hit}`))
    .from(c)
    .where(
      and(
        gt(c.chunk, c0),
        lt(c.chunk, b),
        lt(c.chunk, horizon),
        one ? eq(c.workerId, w) : undefined,
        kept ? inWorkerList(s, sql`${c.workerId}`) : undefined,
      ),
    );
  const rows = s.db
    .select(
      part(
        sql`${m.workerId}`,
        sql`int8send(${m.minute})`,
        ratioBytes(sql`${m.kvActiveSum}`, sql`${m.kvTotalSum}`),
        ratioBytes(sql`${m.prefixHitDelta}`, sql`${m.prefixQueryDelta}`),
      ),
    )
    .from(m)
    .where(
      and(
        gte(m.minute, sql`greatest(${a}, ${horizon})`),
        lt(m.minute, b),
        one ? eq(m.workerId, w) : undefined,
        kept ? inWorkerList(s, sql`${m.workerId}`) : undefined,
      ),
    );
  const x = packed.unionAll(rows as never).as("x") as unknown as Record<"w" | "t" | "u" | "h", SQL.Aliased>;
  // In no order (an ORDER BY in the aggregates doubled the query's time): placed in time order by the caller.
  const agg = (v: SQL.Aliased) => packedBytes(sql`${v}`);
  return s.db
    .select({
      workerId: sql`${x.w}`,
      t: agg(x.t),
      ...(util ? { c0: agg(x.u) } : {}),
      ...(hit ? { [util ? "c1" : "c0"]: agg(x.h) } : {}),
    })
    .from(x as never)
    .groupBy(sql`${x.w}`)
    .limit(MAX_WORKERS * 4);
}

/**
 * A row of chunkedColumns as one worker's columns: its buckets that start in [from, to), in time order, for buckets on
 * a grid of `step` from `from` (the 30-second rollup's own). Each bucket start (a big-endian int8, or a chunk's start
 * and bitmap: db/pg/chart-chunks.ts) is put in its slot in one pass, no comparisons, and the columns are read from the
 * packed doubles in slot order, with no array in between.
 */
function placedRow(r: unknown[], from: number, to: number, step: number, util: boolean, hit: boolean): WorkerColumns {
  const view = (cell: unknown) => {
    const b = bytesOf(cell);
    return new DataView(b.buffer, b.byteOffset, b.byteLength);
  };
  const t = view(r[1]);
  const slots = new Int32Array(Math.ceil((to - from) / step)).fill(-1);
  let n = 0;
  // k: the bucket's place in the packed doubles. An int8 ≥ 0 is one bucket's start (a rollup row, or a chunk packed
  // before bitmaps); a negative one is a chunk's −start − 1, and the int2 after it the bitmap of its buckets.
  const place = (x: number, k: number) => {
    if (x < from || x >= to) return;
    slots[(x - from) / step] = k;
    n++;
  };
  for (let k = 0, i = 0; i < t.byteLength;) {
    const x = t.getInt32(i) * 4294967296 + t.getUint32(i + 4);
    if (x >= 0) {
      place(x, k++);
      i += 8;
      continue;
    }
    const bits = t.getUint16(i + 8);
    for (let b = 0; b < CHART_CHUNK_MS / CHART_BUCKET_MS; b++)
      if ((bits & (1 << b)) !== 0) place(-x - 1 + b * CHART_BUCKET_MS, k++);
    i += 10;
  }
  const starts = new Array<number>(n);
  const read = (cell: unknown) => {
    const v = view(cell);
    const out = new Array<number | null>(n);
    for (let i = 0, j = 0; i < slots.length; i++) {
      const k = slots[i]!;
      if (k < 0) continue;
      const y = v.getFloat64(k * 8);
      out[j++] = Number.isNaN(y) ? null : y;
    }
    return out;
  };
  for (let i = 0, j = 0; i < slots.length; i++) if (slots[i]! >= 0) starts[j++] = from + i * step;
  return {
    workerId: r[0] as string,
    t: starts,
    util: util ? read(r[2]) : [],
    hitRate: hit ? read(r[util ? 3 : 2]) : [],
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
  opts: RollupRead & { charts?: readonly SeriesChart[]; workers?: readonly string[] },
): Promise<WorkerColumns[]> {
  const { to, step, workerId, resolution } = opts;
  if (opts.workers?.length === 0) return [];
  // A scope's workers (with no one worker named): read those only, rather than every worker and dropped after.
  const kept = opts.workers !== undefined && workerId === undefined;
  const charts = opts.charts ?? SERIES_CHARTS;
  const util = charts.includes("util");
  const hit = charts.includes("hitRate");
  const scan = rollupScan(s, opts);
  const { m, index, byWorker, align, one, start } = scan;
  const range = kept ? and(scan.range, inWorkerList(s, sql`${m.workerId}`)) : scan.range;
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
  const chunked = s.engine === "pg" && plain && resolution === "30s";
  const build = () => {
    if (chunked) return chunkedColumns(s, m, { util, hit, one, kept });
    if (plain) {
      // At the rollup's own step the rows are the buckets: aggregated straight into each worker's columns. Where the
      // rollup has a (worker, bucket, …) index, each worker's range is read from it in order (one worker: that range
      // alone), so nothing is sorted to group; else the bucket-start index to the range, or one worker's primary key.
      // A scope's workers: each one's range from the (worker, bucket) primary key, not every worker's from the
      // bucket-start index (a quarter of a 4-cluster fleet's day: 4.5 against 11.6 ms).
      const source = byWorker ? indexed(s, m, byWorker) : one || kept ? m : indexed(s, m, index);
      const where = byWorker && !one && !kept ? and(sql`${m.workerId} IN (${workersOf(m)})`, range) : range;
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
      .from(one || kept ? m : indexed(s, m, index))
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
  const who = one ? "one" : kept ? "kept" : "all";
  const key = `rollupColumns.${resolution}.${who}.${plain ? "rows" : step}.${charts.join("+")}`;
  const params = { a: start, b: to, w: workerId, c: start - CHART_CHUNK_MS, k: JSON.stringify(opts.workers ?? []) };
  const rows = await rawRows(s, key, build, params);
  if (chunked) return rows.map((r) => placedRow(r, start, to, step, util, hit));
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
