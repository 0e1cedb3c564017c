import { and, asc, eq, gt, gte, isNotNull, lt, sql } from "drizzle-orm";
import { minuteOf } from "../../lib/counters";
import type { HistogramEntry } from "../../lib/latency-buckets";
import { rollupCover, type Span } from "./rollup-cover";
import { bucketOf, num, numOrNull } from "./sql";
import type { Store } from "./store";
import { requestRowsIn, scopeRollupIn, workersIn, type RequestScope } from "./scope";

// Decode-side telemetry rows on either engine: inter-token latency and preemptions, cluster-wide or for one worker,
// from raw requests or the per-minute rollups. Which to read and the percentiles are server/reads/decode.ts's.

const MAX_RAW = 200_000;

/** Stat column of request_itl_1m: 0 the requests' mean ITL, 1 their p95 ITL. */
export type ItlStat = 0 | 1;

function rawWhere(s: Store, from: number, to: number, workerId: string | undefined, rs?: RequestScope) {
  const q = s.t.requestReads;
  return and(
    gte(q.arrivedAt, from),
    lt(q.arrivedAt, to),
    workerId === undefined ? undefined : eq(q.workerId, workerId),
    requestRowsIn(s, rs),
  );
}

/** A per-request ITL column (ms), ascending, of requests that arrived in [from, to) (optionally on one worker) and reported it. */
export async function itlValues(
  s: Store,
  from: number,
  to: number,
  column: "itlMsMean" | "itlMsP95",
  workerId?: string,
  rs?: RequestScope,
): Promise<number[]> {
  const c = s.t.requestReads[column];
  const rows = await s.db
    .select({ v: c })
    .from(s.t.requestReads)
    .where(and(rawWhere(s, from, to, workerId, rs), isNotNull(c)))
    .orderBy(asc(c))
    .limit(MAX_RAW);
  return rows.map((r) => r.v!);
}

/** Preemptions summed over, and the number of, requests that arrived in [from, to) (optionally on one worker) and were preempted. */
export async function rawPreemptions(
  s: Store,
  from: number,
  to: number,
  workerId?: string,
  rs?: RequestScope,
): Promise<{ preemptions: number; preempted: number }> {
  const q = s.t.requestReads;
  const [r] = await s.db
    .select({
      preemptions: num(sql`coalesce(sum(${q.preemptions}), 0)`),
      preempted: num(sql`count(${q.preemptions})`),
    })
    .from(q)
    .where(and(rawWhere(s, from, to, workerId, rs), gt(q.preemptions, 0)));
  return r ?? { preemptions: 0, preempted: 0 };
}

/** The ITL histogram of one stat over the minutes overlapping [from, to), optionally of one worker. */
export async function rolledItlHistogram(
  s: Store,
  from: number,
  to: number,
  stat: ItlStat,
  workerId?: string,
  workers?: readonly string[],
): Promise<HistogramEntry[]> {
  if (workers?.length === 0) return [];
  const h = s.t.requestItl1m;
  return s.db
    .select({ bucket: h.bucket, n: num(sql`sum(${h.n})`) })
    .from(h)
    .where(
      and(
        gte(h.minute, minuteOf(from)),
        lt(h.minute, to),
        eq(h.stat, stat),
        workerId === undefined ? undefined : eq(h.workerId, workerId),
        workersIn(h.workerId, workers),
      ),
    )
    .groupBy(h.bucket);
}

/** Preemptions of requests in the minutes overlapping [from, to), from the request rollups (of a scope: its own). */
export async function rolledPreemptions(s: Store, from: number, to: number, rs?: RequestScope): Promise<number> {
  if (rs) {
    const m = s.t.requestsScope1m;
    const [r] = await s.db
      .select({ n: num(sql`coalesce(sum(${m.preemptions}), 0)`) })
      .from(m)
      .where(and(gte(m.minute, minuteOf(from)), lt(m.minute, to), scopeRollupIn(m, rs)));
    return r?.n ?? 0;
  }
  const m = s.t.requests1m;
  const [r] = await s.db
    .select({ n: num(sql`coalesce(sum(${m.preemptions}), 0)`) })
    .from(m)
    .where(and(gte(m.minute, minuteOf(from)), lt(m.minute, to)));
  return r?.n ?? 0;
}

/**
 * Preemption counter bounds and batch-token sums per worker over the minutes overlapping [from, to): the 15-minute
 * stats rollup for the quarters held whole, the 1-minute one around them (the same minima, maxima and sums as the
 * 1-minute rows alone), optionally of one worker. A union to group; null when no minute overlaps.
 */
function decodeStatRows(s: Store, from: number, to: number, workerId?: string) {
  const { workerStats1m: m, workerStats15m: q } = s.t;
  const cover = rollupCover(minuteOf(from), Math.ceil(to / 60_000) * 60_000);
  const branch = (t: typeof m | typeof q, x: Span) =>
    s.db
      .select({
        w: sql<string>`${t.workerId}`.as("w"),
        lo: sql<number | null>`${t.preemptionsMin}`.as("lo"),
        hi: sql<number | null>`${t.preemptionsMax}`.as("hi"),
        bt: sql<number>`${t.batchTokensSum}`.as("bt"),
        bn: sql<number>`${t.batchSamples}`.as("bn"),
      })
      .from(t)
      .where(
        and(gte(t.minute, x.from), lt(t.minute, x.to), workerId === undefined ? undefined : eq(t.workerId, workerId)),
      );
  const [first, ...rest] = [
    ...(cover.quarters ? [branch(q, cover.quarters)] : []),
    ...cover.minutes.map((x) => branch(m, x)),
  ];
  if (!first) return null;
  return rest.reduce((u, b) => u.unionAll(b), first.$dynamic()).as("t");
}

/** Growth of a worker's cumulative preemption counter over [from, to) from its stats rollups (0 when not reported). */
export async function workerPreemptions(s: Store, from: number, to: number, workerId: string): Promise<number> {
  const t = decodeStatRows(s, from, to, workerId);
  if (!t) return 0;
  const [r] = await s.db.select({ lo: numOrNull(sql`min(${t.lo})`), hi: numOrNull(sql`max(${t.hi})`) }).from(t);
  return !r || r.lo === null || r.hi === null ? 0 : r.hi - r.lo;
}

/**
 * Per worker (or of one) over the minutes overlapping [from, to): preemption counter growth and mean batch tokens per pass
 * (null when not reported), and the ITL histogram entries per worker and stat.
 */
export async function workerDecodeRows(
  s: Store,
  from: number,
  to: number,
  workerId?: string,
): Promise<{
  workers: { w: string; preemptions: number | null; batch: number | null }[];
  itl: { w: string; stat: ItlStat; bucket: number; n: number }[];
}> {
  const h = s.t.requestItl1m;
  const t = decodeStatRows(s, from, to, workerId);
  const [workers, itl] = await Promise.all([
    t
      ? s.db
          .select({
            w: t.w,
            preemptions: numOrNull(sql`max(${t.hi}) - min(${t.lo})`),
            batch: numOrNull(sql`sum(${t.bt}) / nullif(sum(${t.bn}), 0)`),
          })
          .from(t)
          .groupBy(t.w)
          .limit(1000)
      : [],
    s.db
      .select({ w: h.workerId, stat: h.stat, bucket: h.bucket, n: num(sql`sum(${h.n})`) })
      .from(h)
      .where(
        and(
          gte(h.minute, minuteOf(from)),
          lt(h.minute, to),
          workerId === undefined ? undefined : eq(h.workerId, workerId),
        ),
      )
      .groupBy(h.workerId, h.stat, h.bucket)
      .limit(100_000),
  ]);
  return { workers, itl: itl as { w: string; stat: ItlStat; bucket: number; n: number }[] };
}

/** The p95-ITL histogram entries per bucket of `step` ms (a multiple of a minute) over the minutes overlapping [from, to). */
export async function rolledItlP95Buckets(
  s: Store,
  from: number,
  to: number,
  step: number,
  workers?: readonly string[],
): Promise<({ t: number } & HistogramEntry)[]> {
  if (workers?.length === 0) return [];
  const h = s.t.requestItl1m;
  const t = bucketOf(h.minute, step);
  return s.db
    .select({ t, bucket: h.bucket, n: num(sql`sum(${h.n})`) })
    .from(h)
    .where(and(eq(h.stat, 1), gte(h.minute, minuteOf(from)), lt(h.minute, to), workersIn(h.workerId, workers)))
    .groupBy(t, h.bucket)
    .limit(MAX_RAW);
}

/** Each request's p95 ITL (ms) with its bucket of `step` ms, ordered by bucket then value, for requests in [from, to). */
export async function rawItlP95Rows(
  s: Store,
  from: number,
  to: number,
  step: number,
  rs?: RequestScope,
): Promise<{ t: number; v: number }[]> {
  const q = s.t.requestReads;
  const t = bucketOf(q.arrivedAt, step);
  const rows = await s.db
    .select({ t, v: q.itlMsP95 })
    .from(q)
    .where(and(rawWhere(s, from, to, undefined, rs), isNotNull(q.itlMsP95)))
    .orderBy(asc(t), asc(q.itlMsP95))
    .limit(MAX_RAW);
  return rows.map((r) => ({ t: r.t, v: r.v! }));
}
