import { and, asc, desc, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import { minuteOf, type CounterSample } from "../../lib/counters";
import type { LifecycleKind, RawBucket, SeriesRow, StatsResolution } from "../rows/workers";
import { bucketOf, fieldsOf, indexed, num, numOrNull, rawRows, valueRows } from "./sql";
import type { Store } from "./store";

// Reads for the worker views on either engine. Every query takes a time range [from, to) (Unix ms) and is bounded.
// Which resolution to read is the caller's (server/analysis/resolution.ts); these only read the table named.

export const MAX_WORKERS = 500;
const MAX_LIFECYCLE = 5_000;

export type WorkerInfo = {
  workerId: string;
  role: string | null;
  model: string | null;
  blockSize: number | null;
  kvTotalBlocks: number | null;
  firstSeen: number;
  lastSeen: number;
  downReason: string | null;
};
export type LifecycleRow = { workerId: string; kind: LifecycleKind; ts: number };
export type LatestSample = {
  workerId: string;
  ts: number;
  kvActive: number;
  kvTotal: number;
  running: number;
  waiting: number;
};
export type PrefixTotals = { workerId: string; query: number; hit: number };

function infoCols(s: Store) {
  const w = s.t.workers;
  return {
    workerId: w.workerId,
    role: w.role,
    model: w.model,
    blockSize: w.blockSize,
    kvTotalBlocks: w.kvTotalBlocks,
    firstSeen: w.firstSeen,
    lastSeen: w.lastSeen,
    downReason: w.downReason,
  };
}

/** Workers with any telemetry overlapping [from, to], by id, at most `limit`. */
export async function workersInRange(s: Store, from: number, to: number, limit = MAX_WORKERS): Promise<WorkerInfo[]> {
  const w = s.t.workers;
  return s.db
    .select(infoCols(s))
    .from(w)
    .where(and(lte(w.firstSeen, to), gte(w.lastSeen, from)))
    .orderBy(asc(w.workerId))
    .limit(limit);
}

/** One worker's identity row, or undefined when it was never seen. */
export async function workerById(s: Store, workerId: string): Promise<WorkerInfo | undefined> {
  const w = s.t.workers;
  return (await s.db.select(infoCols(s)).from(w).where(eq(w.workerId, workerId)).limit(1))[0];
}

/** worker.up/down events with from ≤ ts ≤ to, newest first, the latest MAX_LIFECYCLE (optionally of one worker). */
export async function lifecycleInRange(s: Store, from: number, to: number, workerId?: string): Promise<LifecycleRow[]> {
  const e = s.t.workerEvents;
  return s.db
    .select({ workerId: e.workerId, kind: e.kind, ts: e.ts })
    .from(e)
    .where(and(gte(e.ts, from), lte(e.ts, to), workerId === undefined ? undefined : eq(e.workerId, workerId)))
    .orderBy(desc(e.ts))
    .limit(MAX_LIFECYCLE);
}

/** Each worker's latest worker.up/down event before `from` (optionally of one worker), by worker id. */
export async function lifecycleBefore(s: Store, from: number, workerId?: string): Promise<LifecycleRow[]> {
  const e = s.t.workerEvents;
  const ranked = s.db
    .select({
      workerId: e.workerId,
      kind: e.kind,
      ts: e.ts,
      rank: sql<number>`row_number() OVER (PARTITION BY ${e.workerId} ORDER BY ${e.ts} DESC)`.as("rank"),
    })
    .from(e)
    .where(and(lt(e.ts, from), workerId === undefined ? undefined : eq(e.workerId, workerId)))
    .as("ranked");
  return s.db
    .select({ workerId: ranked.workerId, kind: ranked.kind, ts: ranked.ts })
    .from(ranked)
    .where(eq(ranked.rank, 1))
    .orderBy(asc(ranked.workerId))
    .limit(MAX_WORKERS * 4);
}

/**
 * Each worker's latest sample with from ≤ ts ≤ to. Where raw samples have aged out, the latest
 * per-minute rollup in range stands in (its means, timestamped at its minute). One query for all the workers (each
 * worker's latest time found through its (worker, ts) index, its row joined back on it), then one for those without
 * a raw sample: not a round trip per worker.
 */
export async function latestSamples(
  s: Store,
  workerIds: readonly string[],
  from: number,
  to: number,
): Promise<LatestSample[]> {
  const { workerStats: r, workerStats1m: m, workers: w } = s.t;
  const ids = [...new Set(workerIds)].slice(0, MAX_WORKERS);
  if (!ids.length) return [];
  const out = new Map<string, LatestSample>();
  const lastRaw = s.db
    .select({ ts: r.ts })
    .from(r)
    .where(and(eq(r.workerId, w.workerId), gte(r.ts, from), lte(r.ts, to)))
    .orderBy(desc(r.ts))
    .limit(1);
  const rawAt = s.db
    .select({ workerId: w.workerId, at: sql<number>`${lastRaw}`.as("at") })
    .from(w)
    .where(inArray(w.workerId, ids))
    .as("raw_at");
  const raw = await s.db
    .select({
      workerId: r.workerId,
      ts: r.ts,
      kvActive: r.kvActiveBlocks,
      kvTotal: r.kvTotalBlocks,
      running: r.requestsRunning,
      waiting: r.requestsWaiting,
    })
    .from(rawAt)
    .innerJoin(r, and(eq(r.workerId, rawAt.workerId), eq(r.ts, rawAt.at)));
  for (const x of raw) if (!out.has(x.workerId)) out.set(x.workerId, x);
  const missing = ids.filter((id) => !out.has(id));
  if (missing.length) {
    // Rollup rows are one per (worker, minute): the join back finds one row each.
    const lastMinute = s.db
      .select({ minute: m.minute })
      .from(m)
      .where(and(eq(m.workerId, w.workerId), gte(m.minute, minuteOf(from)), lte(m.minute, to)))
      .orderBy(desc(m.minute))
      .limit(1);
    const minuteAt = s.db
      .select({ workerId: w.workerId, at: sql<number>`${lastMinute}`.as("at") })
      .from(w)
      .where(inArray(w.workerId, missing))
      .as("minute_at");
    const mean = (c: typeof m.kvActiveSum) => num(sql`${c} * 1.0 / ${m.samples}`);
    const rolled = await s.db
      .select({
        workerId: m.workerId,
        ts: m.minute,
        kvActive: mean(m.kvActiveSum),
        kvTotal: mean(m.kvTotalSum),
        running: mean(m.runningSum),
        waiting: mean(m.waitingSum),
      })
      .from(minuteAt)
      .innerJoin(m, and(eq(m.workerId, minuteAt.workerId), eq(m.minute, minuteAt.at)));
    for (const x of rolled) out.set(x.workerId, x);
  }
  return ids.flatMap((id) => out.get(id) ?? []);
}

/** A stored rollup of worker stats. */
export type RollupResolution = Exclude<StatsResolution, "raw">;
const ALIGN: Record<RollupResolution, number> = {
  "10s": 10_000,
  "30s": 30_000,
  "1m": 60_000,
  "5m": 300_000,
  "15m": 900_000,
};

/**
 * The rollup table of a resolution, its (bucket start, worker, …) covering index, its (worker, bucket start, …) one
 * (null: SQLite's 1-, 5- and 15-minute rollups have none, nor has PostgreSQL any: its planner hashes the bucket-start
 * index's rows into groups faster than it reads 64 workers' ranges), and its bucket size in ms.
 */
export function statsTable(s: Store, resolution: RollupResolution) {
  const t = {
    "10s": s.t.workerStats10s,
    "30s": s.t.workerStats30s,
    "1m": s.t.workerStats1m,
    "5m": s.t.workerStats5m,
    "15m": s.t.workerStats15m,
  }[resolution];
  const byWorker =
    s.engine === "sqlite" && (resolution === "10s" || resolution === "30s")
      ? `worker_stats_${resolution}_worker`
      : null;
  return { table: t, index: `worker_stats_${resolution}_minute`, byWorker, align: ALIGN[resolution] };
}

export type RollupRead = { from: number; to: number; step: number; resolution: RollupResolution; workerId?: string };

/**
 * A prepared rollup read's parts: the rollup's table, its bucket-start index and alignment, the first bucket start
 * the range overlaps, and the filter on placeholders `a` (that start), `b` (to) and `w` (the one worker, if named).
 */
export function rollupScan(s: Store, opts: RollupRead) {
  const { table: m, index, byWorker, align } = statsTable(s, opts.resolution);
  const one = opts.workerId !== undefined;
  const [a, b, w] = [sql.placeholder("a"), sql.placeholder("b"), sql.placeholder("w")];
  const range = and(gte(m.minute, a), lt(m.minute, b), one ? eq(m.workerId, w) : undefined);
  return { m, index, byWorker, align, one, range, start: opts.from - (opts.from % align) };
}

/** Prefix tokens queried and hit per worker, from the rollup named, over its buckets overlapping [from, to). */
export async function prefixByWorker(
  s: Store,
  resolution: "1m" | "15m",
  from: number,
  to: number,
  workerId?: string,
): Promise<PrefixTotals[]> {
  const { table: m, index, align } = statsTable(s, resolution);
  // All workers: the minute index keeps the scan to the range (grouping would otherwise walk the whole primary key).
  return s.db
    .select(
      fieldsOf({
        workerId: m.workerId,
        query: num(sql`sum(${m.prefixQueryDelta})`),
        hit: num(sql`sum(${m.prefixHitDelta})`),
      }),
    )
    .from(workerId === undefined ? indexed(s, m, index) : m)
    .where(
      and(
        gte(m.minute, from - (from % align)),
        lt(m.minute, to),
        workerId === undefined ? undefined : eq(m.workerId, workerId),
      ),
    )
    .groupBy(m.workerId)
    .orderBy(asc(m.workerId))
    .limit(MAX_WORKERS * 4);
}

/**
 * The earliest 10-second rollup bucket and raw sample stored (null: none), for choosing what a short range reads: one
 * statement of two index probes (the rollup's bucket-start index; the raw samples' index led by ts, on PostgreSQL one
 * per daily partition, read oldest first until one has a row).
 */
export async function statsCoverage(s: Store): Promise<{ oldest10s: number | null; oldestRaw: number | null }> {
  const { workerStats10s: m, workerStats: r } = s.t;
  // Each min() alone in its own subquery over a one-row source: SQLite answers a bare min(x) from x's index only then.
  const [row] = await rawRows(s, "statsCoverage", () =>
    s.db
      .select({
        a: sql`(${s.db.select({ v: sql`min(${m.minute})` }).from(m)})`,
        b: sql`(${s.db.select({ v: sql`min(${r.ts})` }).from(r)})`,
      })
      .from(sql`(SELECT 1) AS one` as unknown as typeof m),
  );
  const value = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return { oldest10s: value(row?.[0]), oldestRaw: value(row?.[1]) };
}

export { rawBuckets } from "./worker-raw";

/**
 * Rows of the rollup named, over its buckets overlapping [from, to), summed per worker and bucket of `step` ms (a
 * whole number of rows): the rows themselves when the step is the rollup's own. Ordered by worker then time for one
 * worker; in no order across workers.
 */
export async function rollupBuckets(s: Store, opts: RollupRead): Promise<SeriesRow[]> {
  const { to, step, workerId, resolution } = opts;
  const { m, index, align, one, range, start } = rollupScan(s, opts);
  const limit = (Math.ceil((to - start) / step) + 1) * MAX_WORKERS * 4;
  const plain = !one && step === align;
  const build = () => {
    // All workers at the rollup's own step: one range scan of the bucket-start index, the rows being the buckets
    // (summing and sorting them cost more). Else summed per worker and bucket.
    if (plain)
      return s.db
        .select(
          fieldsOf({
            workerId: m.workerId,
            t: m.minute,
            samples: m.samples,
            kvActive: m.kvActiveSum,
            kvTotal: m.kvTotalSum,
            query: m.prefixQueryDelta,
            hit: m.prefixHitDelta,
          }),
        )
        .from(indexed(s, m, index))
        .where(range)
        .limit(sql.placeholder("limit"));
    const t = bucketOf(m.minute, step);
    const q = s.db
      .select({
        workerId: fieldsOf({ w: m.workerId }).w,
        t,
        ...bucketSums(m),
      })
      .from(one ? m : indexed(s, m, index))
      .where(range)
      .groupBy(m.workerId, t);
    return one ? q.orderBy(asc(t)) : q.limit(sql.placeholder("limit"));
  };
  const key = `rollupBuckets.${resolution}.${one ? "one" : "all"}.${plain ? "rows" : step}`;
  const rows = await rawRows(s, key, build, { a: start, b: to, w: workerId, limit });
  return rows.map((r) => seriesRowOf(r[0] as string, r, 1));
}

/** A rollup's bucket sums as select fields: samples, KV active and total, prefix tokens queried and hit. */
function bucketSums(m: ReturnType<typeof statsTable>["table"]) {
  return {
    samples: num(sql`sum(${m.samples})`),
    kvActive: num(sql`sum(${m.kvActiveSum})`),
    kvTotal: num(sql`sum(${m.kvTotalSum})`),
    query: num(sql`sum(${m.prefixQueryDelta})`),
    hit: num(sql`sum(${m.prefixHitDelta})`),
  };
}

/** `workerId`'s row from a row of values holding t and bucketSums' five in order from index `i`. */
function seriesRowOf(workerId: string, r: unknown[], i: number): SeriesRow {
  return {
    workerId,
    t: Number(r[i]),
    samples: Number(r[i + 1]),
    kvActive: Number(r[i + 2]),
    kvTotal: Number(r[i + 3]),
    query: Number(r[i + 4]),
    hit: Number(r[i + 5]),
  };
}

/**
 * Bucket sums over every worker of `workers` (keys; all when undefined) from the named rollup over its buckets
 * overlapping [from, to), in steps of `step` ms: one row per bucket (workerId ""), what the overview's trends add up.
 * Summed by the database: an hour of 256 workers' 10-second rollup is 29k per-worker rows against 120.
 */
export async function rollupTotalBuckets(
  s: Store,
  opts: Omit<RollupRead, "workerId"> & { workers?: readonly string[] },
): Promise<SeriesRow[]> {
  if (opts.workers?.length === 0) return [];
  const { table: m, index, align } = statsTable(s, opts.resolution);
  const t = bucketOf(m.minute, opts.step);
  const kept = opts.workers === undefined ? undefined : inArray(m.workerId, [...opts.workers]);
  const rows = await valueRows(
    s,
    s.db
      .select({ t, ...bucketSums(m) })
      .from(indexed(s, m, index))
      .where(and(gte(m.minute, opts.from - (opts.from % align)), lt(m.minute, opts.to), kept))
      .groupBy(t)
      .orderBy(asc(t)),
  );
  return rows.map((r) => seriesRowOf("", r, 0));
}

export type { CounterSample, RawBucket };
