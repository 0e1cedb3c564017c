import { and, asc, desc, eq, gte, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import { minuteOf } from "../../lib/counters";
import type { HistogramEntry } from "../../lib/latency-buckets";
import type { WorkerSample } from "../rows/overview";
import { bucketOf, num, numOrNull, sortedPairs, valueRows } from "./sql";
import type { Store } from "./store";
import { requestRowsIn, scopeRollupIn, workersIn, type RequestScope } from "./scope";

// The overview's reads on either engine: request counts and TTFTs (raw and per-minute rollups), prefix tokens, the
// workers present, and whether anything was ingested. Which to read and the percentiles are server/reads' and
// server/analysis'.

const MAX_RAW = 200_000;
const MAX_ROWS = 20_000;
const MAX_BUCKETS = 5_000;

function arrivedIn(s: Store, from: number, to: number, rs?: RequestScope) {
  const r = s.t.requestReads;
  return and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), requestRowsIn(s, rs));
}

/** Time to first token (ms), ascending, of requests that arrived in [from, to) (at most MAX_RAW; of a scope). */
export async function ttftsInRange(s: Store, from: number, to: number, rs?: RequestScope): Promise<number[]> {
  const r = s.t.requestReads;
  const v = num(sql`${r.firstTokenAt} - ${r.arrivedAt}`);
  const rows = await s.db
    .select({ v })
    .from(r)
    .where(and(arrivedIn(s, from, to, rs), isNotNull(r.firstTokenAt)))
    .orderBy(asc(v))
    .limit(MAX_RAW);
  return rows.map((x) => x.v);
}

/** Requests that arrived in [from, to) (of a scope). */
export async function requestCount(s: Store, from: number, to: number, rs?: RequestScope): Promise<number> {
  const [row] = await s.db
    .select({ n: num(sql`count(*)`) })
    .from(s.t.requestReads)
    .where(arrivedIn(s, from, to, rs));
  return row?.n ?? 0;
}

/** Distinct sessions with a request in [from, to) (of a scope). */
export async function sessionCount(s: Store, from: number, to: number, rs?: RequestScope): Promise<number> {
  const r = s.t.requestReads;
  const [row] = await s.db
    .select({ n: num(sql`count(DISTINCT ${r.sessionId})`) })
    .from(r)
    .where(and(arrivedIn(s, from, to, rs), isNotNull(r.sessionId)));
  return row?.n ?? 0;
}

/**
 * Per bucket of `step` ms over raw requests that arrived in [from, to): how many arrived (buckets without requests are
 * absent), and the TTFT (ms) of each timed one, ordered by bucket then value (for a per-bucket quantile).
 */
export async function rawRequestBuckets(
  s: Store,
  from: number,
  to: number,
  step: number,
  rs?: RequestScope,
): Promise<{ counts: { t: number; requests: number }[]; ttfts: { t: number; v: number }[] }> {
  const r = s.t.requestReads;
  const t = bucketOf(r.arrivedAt, step);
  const v = num(sql`${r.firstTokenAt} - ${r.arrivedAt}`);
  const [counts, ttfts] = await Promise.all([
    s.db
      .select({ t, requests: num(sql`count(*)`) })
      .from(r)
      .where(arrivedIn(s, from, to, rs))
      .groupBy(t)
      .orderBy(asc(t))
      .limit(MAX_BUCKETS),
    // Unordered, sorted here: the database's sort of an hour of a fleet's requests took most of the read.
    valueRows(
      s,
      s.db
        .select({ t, v })
        .from(r)
        .where(and(arrivedIn(s, from, to, rs), isNotNull(r.firstTokenAt)))
        .orderBy(asc(r.arrivedAt))
        .limit(MAX_RAW),
    ),
  ]);
  return { counts, ttfts: sortedPairs(ttfts) };
}

/** Requests that arrived in the minutes overlapping [from, to), from the request rollups (of a scope: its own). */
export async function rolledRequestCount(s: Store, from: number, to: number, rs?: RequestScope): Promise<number> {
  if (rs) {
    const m = s.t.requestsScope1m;
    const [row] = await s.db
      .select({ n: num(sql`coalesce(sum(${m.requests}), 0)`) })
      .from(m)
      .where(and(gte(m.minute, minuteOf(from)), lt(m.minute, to), scopeRollupIn(m, rs)));
    return row?.n ?? 0;
  }
  const m = s.t.requests1m;
  const [row] = await s.db
    .select({ n: num(sql`coalesce(sum(${m.requests}), 0)`) })
    .from(m)
    .where(and(gte(m.minute, minuteOf(from)), lt(m.minute, to)));
  return row?.n ?? 0;
}

/** The TTFT histogram of requests in the minutes overlapping [from, to) (of a scope: its own rollup). */
export async function rolledTtftHistogram(
  s: Store,
  from: number,
  to: number,
  rs?: RequestScope,
): Promise<HistogramEntry[]> {
  if (rs) {
    const h = s.t.requestTtftScope1m;
    return s.db
      .select({ bucket: h.bucket, n: num(sql`sum(${h.n})`) })
      .from(h)
      .where(and(gte(h.minute, minuteOf(from)), lt(h.minute, to), scopeRollupIn(h, rs)))
      .groupBy(h.bucket);
  }
  const h = s.t.requestTtft1m;
  return s.db
    .select({ bucket: h.bucket, n: num(sql`sum(${h.n})`) })
    .from(h)
    .where(and(gte(h.minute, minuteOf(from)), lt(h.minute, to)))
    .groupBy(h.bucket);
}

/**
 * Requests per bucket of `step` ms (a multiple of a minute), ascending, and the TTFT histogram entries of each bucket
 * (in no order; a bucket may repeat); buckets without requests are absent.
 */
export async function rolledRequestBuckets(
  s: Store,
  from: number,
  to: number,
  step: number,
  rs?: RequestScope,
): Promise<{ counts: { t: number; requests: number }[]; ttft: ({ t: number } & HistogramEntry)[] }> {
  if (rs) return rolledScopeBuckets(s, from, to, step, rs);
  const { requests1m: m, requestTtft1m: h } = s.t;
  const tm = bucketOf(m.minute, step);
  const th = bucketOf(h.minute, step);
  const [counts, ttft] = await Promise.all([
    s.db
      .select({ t: tm, requests: num(sql`sum(${m.requests})`) })
      .from(m)
      .where(and(gte(m.minute, minuteOf(from)), lt(m.minute, to)))
      .groupBy(tm)
      .orderBy(asc(tm))
      .limit(MAX_ROWS),
    s.db
      .select({ t: th, bucket: h.bucket, n: num(sql`sum(${h.n})`) })
      .from(h)
      .where(and(gte(h.minute, minuteOf(from)), lt(h.minute, to)))
      .groupBy(th, h.bucket)
      .limit(MAX_ROWS * 10),
  ]);
  return { counts, ttft };
}

/**
 * rolledRequestBuckets of a scope, from the rollups by cluster and model (the same shapes: requests per bucket, TTFT
 * entries per bucket).
 */
async function rolledScopeBuckets(s: Store, from: number, to: number, step: number, rs: RequestScope) {
  const { requestsScope1m: m, requestTtftScope1m: h } = s.t;
  const tm = bucketOf(m.minute, step);
  const th = bucketOf(h.minute, step);
  const [counts, ttft] = await Promise.all([
    s.db
      .select({ t: tm, requests: num(sql`sum(${m.requests})`) })
      .from(m)
      .where(and(gte(m.minute, minuteOf(from)), lt(m.minute, to), scopeRollupIn(m, rs)))
      .groupBy(tm)
      .orderBy(asc(tm))
      .limit(MAX_ROWS),
    s.db
      .select({ t: th, bucket: h.bucket, n: num(sql`sum(${h.n})`) })
      .from(h)
      .where(and(gte(h.minute, minuteOf(from)), lt(h.minute, to), scopeRollupIn(h, rs)))
      .groupBy(th, h.bucket)
      .limit(MAX_ROWS * 10),
  ]);
  return { counts, ttft };
}

const QUARTER_HOUR = 900_000;

/**
 * Prefix tokens queried and hit in the minutes overlapping [from, to), of the given workers (keys; every worker when
 * undefined): whole quarter hours from the 15-minute rollup, the minutes either side from the per-minute one (the
 * sums are the same; a day of 256 workers is 368k minute rows against 25k quarter rows).
 */
export async function prefixTokens(
  s: Store,
  from: number,
  to: number,
  workers?: readonly string[],
): Promise<{ query: number; hit: number }> {
  if (workers?.length === 0) return { query: 0, hit: 0 };
  const first = minuteOf(from);
  // The minutes read are [first, end): those that start before `to`.
  const end = minuteOf(to - 1) + 60_000;
  const a = Math.ceil(first / QUARTER_HOUR) * QUARTER_HOUR;
  const b = Math.floor(end / QUARTER_HOUR) * QUARTER_HOUR;
  const sums = async (m: Store["t"]["workerStats1m"] | Store["t"]["workerStats15m"], lo: number, hi: number) => {
    if (!(lo < hi)) return { query: 0, hit: 0 };
    const [row] = await s.db
      .select({
        query: num(sql`coalesce(sum(${m.prefixQueryDelta}), 0)`),
        hit: num(sql`coalesce(sum(${m.prefixHitDelta}), 0)`),
      })
      .from(m)
      .where(and(gte(m.minute, lo), lt(m.minute, hi), workersIn(m.workerId, workers)));
    return row ?? { query: 0, hit: 0 };
  };
  const parts =
    a < b
      ? await Promise.all([
          sums(s.t.workerStats1m, first, a),
          sums(s.t.workerStats15m, a, b),
          sums(s.t.workerStats1m, b, end),
        ])
      : [await sums(s.t.workerStats1m, first, end)];
  return parts.reduce((x, y) => ({ query: x.query + y.query, hit: x.hit + y.hit }), { query: 0, hit: 0 });
}

/**
 * The latest sample per worker in [from, to] (the last by ts, then by id), with the worker's role; workers that went
 * down after it are left out. By worker id. One probe per known worker on worker_stats (worker_id, ts) rather than a
 * scan of every sample in the range (a day of 64 workers is ~600k rows on PostgreSQL: 80 ms against 1 ms); every
 * sampled worker has a workers row (ingest upserts it, last_seen at least the sample's ts).
 */
export async function latestWorkerSamples(s: Store, from: number, to: number): Promise<WorkerSample[]> {
  const { workerStats: st, workers: w } = s.t;
  // Each column from the same row: one order, unique on (ts, id), within the statement's one snapshot.
  const last = <C extends typeof st.ts | typeof st.kvActiveBlocks | typeof st.kvTotalBlocks>(c: C) =>
    sql`(${s.db
      .select({ c })
      .from(st)
      .where(and(eq(st.workerId, w.workerId), gte(st.ts, from), lte(st.ts, to)))
      .orderBy(desc(st.ts), desc(st.id))
      .limit(1)})`;
  const latest = s.db
    .select({
      workerId: w.workerId,
      role: w.role,
      downAt: w.downAt,
      ts: sql<number | null>`${last(st.ts)}`.as("ts"),
      kvActiveBlocks: num(last(st.kvActiveBlocks)).as("kv_active_blocks"),
      kvTotalBlocks: num(last(st.kvTotalBlocks)).as("kv_total_blocks"),
    })
    .from(w)
    .where(gte(w.lastSeen, from))
    .as("latest");
  return s.db
    .select({
      workerId: latest.workerId,
      role: latest.role,
      kvActiveBlocks: latest.kvActiveBlocks,
      kvTotalBlocks: latest.kvTotalBlocks,
    })
    .from(latest)
    .where(
      and(isNotNull(latest.ts), or(isNull(latest.downAt), lt(latest.downAt, latest.ts), sql`${latest.downAt} > ${to}`)),
    )
    .orderBy(asc(latest.workerId));
}

/**
 * True once anything at all has been ingested (tells "no data yet" from "nothing in this range"). One probe per table in
 * turn, stopping at the first with a row (workers, on any cluster that reported).
 */
export async function hasAnyTelemetry(s: Store): Promise<boolean> {
  const t = s.t;
  const tables = [
    t.workers,
    t.requestReads,
    t.kvEventReads,
    t.routeDecisions,
    t.toolPresence,
    t.reasoningPresence,
    t.plannerPresence,
    t.policyAcks,
  ];
  for (const table of tables)
    if (
      (
        await s.db
          .select({ x: sql`1` })
          .from(table)
          .limit(1)
      ).length
    )
      return true;
  return false;
}
