import type { Db } from "../client";
import type { DecisionBucket, RequestSizedBucket, TokenBucket } from "../rows/routing";
import { candidatesJson } from "../candidate-codec";

// Reads for the routing view. Every query takes a time range [from, to) (Unix ms) and is bounded.

export const MAX_PAGE = 100;
const MAX_SHARE_ROWS = 20_000;
const MAX_BUCKET_ROWS = 5_000;

/**
 * A decision's block size: the chosen worker's (the router counts overlap in that worker's KV blocks), else its
 * request's when reported; null when neither is known.
 */
const blockSizeOf = (d: string) => `coalesce(
  (SELECT w.block_size FROM workers w WHERE w.worker_id = ${d}.chosen_worker_id),
  (SELECT r.block_size FROM requests r WHERE r.request_id = ${d}.request_id AND r.block_size IS NOT NULL LIMIT 1))`;

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

/**
 * One page of decisions in [from, to), newest first (ts, then id, descending), strictly after `cursor` in that
 * order. Fetches limit + 1 rows so the caller can tell whether another page follows.
 */
export function decisionsPage(
  db: Db,
  opts: { from: number; to: number; cursor?: DecisionCursor; limit: number; lossOnly?: boolean },
): DecisionListRow[] {
  const { from, to, cursor, lossOnly } = opts;
  const limit = Math.min(Math.max(1, opts.limit), MAX_PAGE) + 1;
  const after = cursor ? "AND (d.ts < @cts OR (d.ts = @cts AND d.id < @cid))" : "";
  const loss = lossOnly ? "AND d.best_overlap_blocks > d.chosen_overlap_blocks" : "";
  return db.$client
    .prepare(
      `SELECT d.id, d.ts, d.request_id AS requestId, d.session_id AS sessionId, d.prompt_blocks AS promptBlocks,
         d.chosen_worker_id AS chosenWorkerId, d.chosen_overlap_blocks AS chosenOverlapBlocks, d.best_overlap_blocks AS bestOverlapBlocks,
         d.candidate_count AS candidateCount, d.candidates, d.overlap_credit AS overlapCredit, d.prefill_load_scale AS prefillLoadScale,
         d.temperature, ${blockSizeOf("d")} AS blockSize
       FROM route_decisions d WHERE d.ts >= @from AND d.ts < @to ${after} ${loss}
       ORDER BY d.ts DESC, d.id DESC LIMIT @limit`,
    )
    .all({ from, to, limit, cts: cursor?.ts ?? null, cid: cursor?.id ?? null })
    .map((r) => withCandidatesJson(r as DecisionListRow));
}

/** A decision row with its stored candidate list as the JSON array text the event carried. */
export function withCandidatesJson<T extends { candidates: string }>(row: T): T {
  return { ...row, candidates: candidatesJson(row.candidates) };
}

/**
 * Per bucket of `step` ms (epoch-aligned) and chosen worker over raw decisions in [from, to): decisions, lost (best −
 * chosen) and prompt blocks. server/reads/routing.ts picks these or the rollups' sums.
 */
export function rawDecisionBuckets(db: Db, from: number, to: number, step: number): DecisionBucket[] {
  return db.$client
    .prepare(
      `SELECT ts - ts % @step AS t, chosen_worker_id AS workerId, count(*) AS decisions,
         sum(best_overlap_blocks - chosen_overlap_blocks) AS lostBlocks, sum(prompt_blocks) AS promptBlocks
       FROM route_decisions WHERE ts >= @from AND ts < @to GROUP BY t, chosen_worker_id ORDER BY t LIMIT ${MAX_SHARE_ROWS}`,
    )
    .all({ from, to, step }) as DecisionBucket[];
}

/** Block sizes (tokens per block) of workers by id; workers never seen or without one are left out. */
export function workerBlockSizes(db: Db, workerIds: readonly string[]): Map<string, number> {
  const stmt = db.$client
    .prepare("SELECT block_size FROM workers WHERE worker_id = ? AND block_size IS NOT NULL")
    .pluck();
  const out = new Map<string, number>();
  for (const id of workerIds.slice(0, MAX_SHARE_ROWS)) {
    const bs = stmt.get(id) as number | undefined;
    if (bs !== undefined) out.set(id, bs);
  }
  return out;
}

/**
 * For decisions in [from, to) that chose one of `workerIds` (workers without a known block size): token sums per
 * bucket and worker from each decision's request block size, and how many decisions had none.
 */
export function requestSizedBuckets(
  db: Db,
  from: number,
  to: number,
  step: number,
  workerIds: readonly string[],
): RequestSizedBucket[] {
  const stmt = db.$client.prepare(
    `WITH x AS (
       SELECT d.ts - d.ts % @step AS t, d.best_overlap_blocks - d.chosen_overlap_blocks AS lost, d.prompt_blocks AS prompt,
         (SELECT r.block_size FROM requests r WHERE r.request_id = d.request_id AND r.block_size IS NOT NULL LIMIT 1) AS bs
       FROM route_decisions d WHERE d.chosen_worker_id = @workerId AND d.ts >= @from AND d.ts < @to)
     SELECT t, @workerId AS workerId, coalesce(sum(lost * bs), 0) AS lostTokens, coalesce(sum(prompt * bs), 0) AS promptTokens,
       sum(bs IS NULL) AS unknownBlockSize
     FROM x GROUP BY t LIMIT ${MAX_BUCKET_ROWS}`,
  );
  return workerIds.slice(0, 100).flatMap((workerId) => stmt.all({ from, to, step, workerId }) as RequestSizedBucket[]);
}

/** Prompt and cached tokens of raw requests that arrived in [from, to), per bucket of `step` ms; empty buckets are absent. */
export function rawTokenBuckets(db: Db, from: number, to: number, step: number): TokenBucket[] {
  return db.$client
    .prepare(
      `SELECT arrived_at - arrived_at % @step AS t, count(*) AS requests, sum(input_tokens) AS input, sum(cached_tokens) AS cached
       FROM requests WHERE arrived_at >= @from AND arrived_at < @to GROUP BY t ORDER BY t LIMIT ${MAX_BUCKET_ROWS}`,
    )
    .all({ from, to, step }) as TokenBucket[];
}
