import { and, asc, desc, eq, gt, gte, inArray, isNotNull, lt, or, sql, type SQL } from "drizzle-orm";
import { minuteOf } from "../../lib/counters";
import { candidatesJson } from "../codecs/candidates";
import type { DecisionBucket, RequestSizedBucket, TokenBucket } from "../rows/routing";
import { bucketOf, fieldsOf, indexed, num, numOrNull, valueRows } from "./sql";
import type { Store } from "./store";
import type { StoreTables } from "./tables";
import { requestRowsIn, scopeRollupIn, workersIn, type RequestScope } from "./scope";

// Reads for the routing view on either engine. Every query takes a time range [from, to) (Unix ms) and is bounded.
// Which rows to read (raw or rollup) is server/reads/routing.ts's.

export const MAX_PAGE = 100;
const MAX_SHARE_ROWS = 20_000;
const MAX_BUCKET_ROWS = 5_000;
const MAX_ROLLED_ROWS = 20_000;
/** Workers a series asks block sizes of (the share rows' distinct workers) and request sizes for. */
const MAX_SIZED_WORKERS = 500;

export type DecisionCursor = { ts: number; id: string };

export type DecisionListRow = {
  id: string;
  ts: number;
  requestId: string;
  sessionId: string | null;
  promptBlocks: number;
  chosenWorkerId: string;
  chosenOverlapBlocks: number;
  bestOverlapBlocks: number;
  candidateCount: number;
  candidates: string;
  overlapCredit: number;
  prefillLoadScale: number;
  temperature: number;
  blockSize: number | null;
};

/** The block size of a decision's request when reported (the first such row of that request id). */
function requestBlockSize(s: Store, requestId: SQL | object): SQL {
  const r = s.t.requestReads;
  return sql`${s.db
    .select({ b: r.blockSize })
    .from(r)
    .where(and(sql`${r.requestId} = ${requestId}`, isNotNull(r.blockSize)))
    .limit(1)}`;
}

/**
 * One page of decisions in [from, to), newest first (ts, then id, descending), strictly after `cursor` in that
 * order, each with its block size: the chosen worker's (the router counts overlap in that worker's KV blocks), else its
 * request's when reported, else null. Fetches limit + 1 rows so the caller can tell whether another page follows.
 */
export async function decisionsPage(
  s: Store,
  opts: {
    from: number;
    to: number;
    cursor?: DecisionCursor;
    limit: number;
    lossOnly?: boolean;
    /** A scope: decisions of one cluster (its id), and/or won by these workers (keys). */
    clusterId?: number;
    workers?: readonly string[];
  },
): Promise<DecisionListRow[]> {
  const { from, to, cursor, lossOnly } = opts;
  if (opts.workers?.length === 0) return [];
  const limit = Math.min(Math.max(1, opts.limit), MAX_PAGE) + 1;
  const d = s.t.routeDecisions;
  const w = s.t.workers;
  const workerSize = s.db.select({ b: w.blockSize }).from(w).where(eq(w.workerId, d.chosenWorkerId));
  const rows = await s.db
    .select(
      fieldsOf({
        ...decisionColumns(d),
        blockSize: numOrNull(sql`coalesce(${workerSize}, ${requestBlockSize(s, d.requestId)})`),
      }),
    )
    // A model's workers: newest first along the time index, stopping at a page, rather than every decision of those
    // workers in the range sorted (SQLite chose that: 0.75 s for a day of 4 × 64 workers).
    .from(opts.workers ? indexed(s, d, "route_decisions_ts") : d)
    .where(
      and(
        gte(d.ts, from),
        lt(d.ts, to),
        cursor ? or(lt(d.ts, cursor.ts), and(eq(d.ts, cursor.ts), lt(d.id, cursor.id))) : undefined,
        lossOnly ? gt(d.bestOverlapBlocks, d.chosenOverlapBlocks) : undefined,
        opts.clusterId === undefined ? undefined : eq(d.clusterId, opts.clusterId),
        workersIn(d.chosenWorkerId, opts.workers),
      ),
    )
    .orderBy(desc(d.ts), desc(d.id))
    .limit(limit);
  return rows.map(withCandidatesJson);
}

/** A decision's stored columns as DecisionListRow names them (its block size is the caller's to add). */
export function decisionColumns(d: StoreTables["routeDecisions"]) {
  return {
    id: d.id,
    ts: d.ts,
    requestId: d.requestId,
    sessionId: d.sessionId,
    promptBlocks: d.promptBlocks,
    chosenWorkerId: d.chosenWorkerId,
    chosenOverlapBlocks: d.chosenOverlapBlocks,
    bestOverlapBlocks: d.bestOverlapBlocks,
    candidateCount: d.candidateCount,
    candidates: d.candidates,
    overlapCredit: d.overlapCredit,
    prefillLoadScale: d.prefillLoadScale,
    temperature: d.temperature,
  };
}

/** A decision row with its stored candidate list as the JSON array text the event carried. */
export function withCandidatesJson<T extends { candidates: string }>(row: T): T {
  return { ...row, candidates: candidatesJson(row.candidates) };
}

/**
 * Per bucket of `step` ms (epoch-aligned) and chosen worker over raw decisions in [from, to): decisions, lost (best −
 * chosen) and prompt blocks, by bucket.
 */
export async function rawDecisionBuckets(s: Store, from: number, to: number, step: number): Promise<DecisionBucket[]> {
  const d = s.t.routeDecisions;
  const t = bucketOf(d.ts, step);
  return s.db
    .select({
      t,
      workerId: d.chosenWorkerId,
      decisions: num(sql`count(*)`),
      lostBlocks: num(sql`sum(${d.bestOverlapBlocks} - ${d.chosenOverlapBlocks})`),
      promptBlocks: num(sql`sum(${d.promptBlocks})`),
    })
    .from(d)
    .where(and(gte(d.ts, from), lt(d.ts, to)))
    .groupBy(t, d.chosenWorkerId)
    .orderBy(asc(t), asc(d.chosenWorkerId))
    .limit(MAX_SHARE_ROWS);
}

/**
 * Decisions, lost and prompt blocks per bucket of `step` ms (a whole number of the rollup's buckets) and chosen worker,
 * from the routing rollup named, over its buckets overlapping [from, to), by bucket.
 */
export async function rolledDecisionBuckets(
  s: Store,
  resolution: "1m" | "15m",
  from: number,
  to: number,
  step: number,
): Promise<DecisionBucket[]> {
  const [m, align] = resolution === "15m" ? [s.t.routeDecisions15m, 900_000] : [s.t.routeDecisions1m, 60_000];
  // At the rollup's own step its rows are the buckets, in key order: summing and sorting them again took ~45 ms of a
  // day of 256 workers.
  if (step === align) {
    const rows = await valueRows(
      s,
      s.db
        .select({ t: m.minute, workerId: m.chosenWorkerId, d: m.decisions, l: m.lostBlocks, p: m.promptBlocks })
        .from(m)
        .where(and(gte(m.minute, from - (from % align)), lt(m.minute, to)))
        .orderBy(asc(m.minute), asc(m.chosenWorkerId))
        .limit(MAX_ROLLED_ROWS),
    );
    return rows.map((r) => ({
      t: Number(r[0]),
      workerId: r[1] as string,
      decisions: Number(r[2]),
      lostBlocks: Number(r[3]),
      promptBlocks: Number(r[4]),
    }));
  }
  const t = bucketOf(m.minute, step);
  return s.db
    .select({
      t,
      workerId: m.chosenWorkerId,
      decisions: num(sql`sum(${m.decisions})`),
      lostBlocks: num(sql`sum(${m.lostBlocks})`),
      promptBlocks: num(sql`sum(${m.promptBlocks})`),
    })
    .from(m)
    .where(and(gte(m.minute, from - (from % align)), lt(m.minute, to)))
    .groupBy(t, m.chosenWorkerId)
    .orderBy(asc(t), asc(m.chosenWorkerId))
    .limit(MAX_ROLLED_ROWS);
}

/** Block sizes (tokens per block) of workers by id; workers never seen or without one are left out. */
export async function workerBlockSizes(s: Store, workerIds: readonly string[]): Promise<Map<string, number>> {
  const ids = [...new Set(workerIds)].slice(0, MAX_SIZED_WORKERS);
  if (!ids.length) return new Map();
  const w = s.t.workers;
  const rows = await s.db
    .select({ id: w.workerId, bs: w.blockSize })
    .from(w)
    .where(and(inArray(w.workerId, ids), isNotNull(w.blockSize)));
  return new Map(rows.map((r) => [r.id, r.bs!]));
}

/**
 * For decisions in [from, to) that chose one of `workerIds` (workers without a known block size): token sums per
 * bucket and worker from each decision's request block size, and how many decisions had none. One query for all the
 * workers, by bucket then worker.
 */
export async function requestSizedBuckets(
  s: Store,
  from: number,
  to: number,
  step: number,
  workerIds: readonly string[],
): Promise<RequestSizedBucket[]> {
  const ids = [...new Set(workerIds)].slice(0, MAX_SIZED_WORKERS);
  if (!ids.length) return [];
  const d = s.t.routeDecisions;
  const x = s.db
    .select({
      t: bucketOf(d.ts, step).as("t"),
      workerId: d.chosenWorkerId,
      lost: sql<number>`${d.bestOverlapBlocks} - ${d.chosenOverlapBlocks}`.as("lost"),
      prompt: d.promptBlocks,
      bs: sql<number | null>`${requestBlockSize(s, d.requestId)}`.as("bs"),
    })
    .from(d)
    .where(and(inArray(d.chosenWorkerId, ids), gte(d.ts, from), lt(d.ts, to)))
    .as("x");
  return s.db
    .select({
      t: num(sql`${x.t}`),
      workerId: fieldsOf({ w: x.workerId }).w,
      lostTokens: num(sql`coalesce(sum(${x.lost} * ${x.bs}), 0)`),
      promptTokens: num(sql`coalesce(sum(${x.prompt} * ${x.bs}), 0)`),
      unknownBlockSize: num(sql`count(*) - count(${x.bs})`),
    })
    .from(x)
    .groupBy(x.t, x.workerId)
    .orderBy(asc(x.t), asc(x.workerId))
    .limit(MAX_BUCKET_ROWS * 10);
}

/**
 * Prompt and cached tokens of raw requests that arrived in [from, to) (of a scope), per bucket of `step` ms; empty
 * buckets are absent.
 */
export async function rawTokenBuckets(
  s: Store,
  from: number,
  to: number,
  step: number,
  rs?: RequestScope,
): Promise<TokenBucket[]> {
  const r = s.t.requestReads;
  const t = bucketOf(r.arrivedAt, step);
  return s.db
    .select({
      t,
      requests: num(sql`count(*)`),
      input: num(sql`sum(${r.inputTokens})`),
      cached: num(sql`sum(${r.cachedTokens})`),
    })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), requestRowsIn(s, rs)))
    .groupBy(t)
    .orderBy(asc(t))
    .limit(MAX_BUCKET_ROWS);
}

/** Prompt and cached tokens per bucket of `step` ms from the request rollups (of a scope: its own); empty buckets are absent. */
export async function rolledTokenBuckets(
  s: Store,
  from: number,
  to: number,
  step: number,
  rs?: RequestScope,
): Promise<TokenBucket[]> {
  if (rs) {
    const m = s.t.requestsScope1m;
    const t = bucketOf(m.minute, step);
    return s.db
      .select({
        t,
        requests: num(sql`sum(${m.requests})`),
        input: num(sql`sum(${m.inputTokens})`),
        cached: num(sql`sum(${m.cachedTokens})`),
      })
      .from(m)
      .where(and(gte(m.minute, minuteOf(from)), lt(m.minute, to), scopeRollupIn(m, rs)))
      .groupBy(t)
      .orderBy(asc(t))
      .limit(MAX_ROLLED_ROWS);
  }
  const m = s.t.requests1m;
  const t = bucketOf(m.minute, step);
  return s.db
    .select({
      t,
      requests: num(sql`sum(${m.requests})`),
      input: num(sql`sum(${m.inputTokens})`),
      cached: num(sql`sum(${m.cachedTokens})`),
    })
    .from(m)
    .where(and(gte(m.minute, minuteOf(from)), lt(m.minute, to)))
    .groupBy(t)
    .orderBy(asc(t))
    .limit(MAX_ROLLED_ROWS);
}
