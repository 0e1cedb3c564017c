import type { ReasoningRow, ToolRow, TurnRow } from "../rows/sessions";
import type { Db } from "../client";
import { candidatesJson } from "../candidate-codec";
import { decodePolicyVersions } from "../request-json-codec";
import { withCandidatesJson, type DecisionListRow } from "../store/routing";
import type { SessionRow } from "../rows/session-summaries";

// Reads for the sessions list and the session trace. Lists are bounded and keyset-paged.

export const SORTS = {
  lastAt: "last_at",
  firstAt: "first_at",
  turns: "turns",
  agents: "agents",
  inputTokens: "input_tokens",
  cachedShare: "coalesce(cached_share, -1)",
  recomputed: "(cold + diverged + evicted + routed_away + unknown)",
  cold: "cold",
  diverged: "diverged",
  evicted: "evicted",
  routedAway: "routed_away",
  ttftP50: "coalesce(ttft_p50, -1)",
  toolWaitMs: "tool_wait_ms",
  duration: "duration",
  sessionId: "session_id",
} as const;
export type SortKey = keyof typeof SORTS;

export type SessionFilter = {
  from: number;
  to: number;
  now: number;
  harness?: string | null;
  sessionType?: string | null;
  status?: "active" | "ended" | "error" | null;
  minTurns?: number | null;
  minHit?: number | null;
  maxHit?: number | null;
  hasSubagents?: boolean | null;
  workerId?: string | null;
  search?: string | null;
};

export type SessionCursor = { v: number | string; id: string };

/** Sessions idle for longer than this (ms) count as ended. */
export const ACTIVE_MS = 5 * 60_000;

const COLUMNS = `session_id AS sessionId, harness, session_type AS sessionType, first_at AS firstAt, last_at AS lastAt, turns, agents, subagents,
  input_tokens AS inputTokens, cached_tokens AS cachedTokens, output_tokens AS outputTokens, cached_share AS cachedShare, cold, diverged, evicted,
  routed_away AS routedAway, unknown, ttft_p50 AS ttftP50, tool_calls AS toolCalls, tool_wait_ms AS toolWaitMs, errors, duration`;

export type { SessionRow };

function where(f: SessionFilter): { sql: string; params: Record<string, unknown> } {
  const w = ["last_at >= @from", "first_at < @to"];
  const params: Record<string, unknown> = { from: f.from, to: f.to, active: f.now - ACTIVE_MS };
  if (f.harness) (w.push("harness = @harness"), (params.harness = f.harness));
  if (f.sessionType) (w.push("session_type = @sessionType"), (params.sessionType = f.sessionType));
  if (f.status === "error") w.push("errors > 0");
  if (f.status === "active") w.push("errors = 0 AND last_at >= @active");
  if (f.status === "ended") w.push("errors = 0 AND last_at < @active");
  if (f.minTurns) (w.push("turns >= @minTurns"), (params.minTurns = f.minTurns));
  if (f.minHit != null) (w.push("cached_share >= @minHit"), (params.minHit = f.minHit));
  if (f.maxHit != null) (w.push("cached_share <= @maxHit"), (params.maxHit = f.maxHit));
  if (f.hasSubagents === true) w.push("subagents > 0");
  if (f.hasSubagents === false) w.push("subagents = 0");
  if (f.workerId)
    (w.push("EXISTS (SELECT 1 FROM requests r WHERE r.session_id = s.session_id AND r.worker_id = @workerId)"),
      (params.workerId = f.workerId));
  if (f.search) (w.push("instr(session_id, @search) > 0"), (params.search = f.search));
  return { sql: w.join(" AND "), params };
}

/** One page of session summaries matching the filter, ordered by a whitelisted column then id; limit + 1 rows. */
export function sessionsPage(
  db: Db,
  f: SessionFilter,
  sort: SortKey,
  dir: "asc" | "desc",
  limit: number,
  cursor?: SessionCursor | null,
): (SessionRow & { sortValue: number | string })[] {
  const col = SORTS[sort];
  const { sql, params } = where(f);
  const op = dir === "desc" ? "<" : ">";
  const after = cursor ? `AND (${col} ${op} @cv OR (${col} = @cv AND session_id ${op} @cid))` : "";
  return db.$client
    .prepare(
      `SELECT ${COLUMNS}, ${col} AS sortValue FROM session_summaries s WHERE ${sql} ${after} ORDER BY ${col} ${dir}, session_id ${dir} LIMIT @limit`,
    )
    .all({ ...params, limit: limit + 1, cv: cursor?.v ?? null, cid: cursor?.id ?? null }) as (SessionRow & {
    sortValue: number | string;
  })[];
}

/** Distinct harnesses and session types among summaries (for the filter menus), at most 50 each. */
export function sessionFacets(db: Db): { harnesses: string[]; sessionTypes: string[] } {
  const c = db.$client;
  return {
    harnesses: c
      .prepare("SELECT DISTINCT harness FROM session_summaries WHERE harness IS NOT NULL ORDER BY 1 LIMIT 50")
      .pluck()
      .all() as string[],
    sessionTypes: c
      .prepare("SELECT DISTINCT session_type FROM session_summaries WHERE session_type IS NOT NULL ORDER BY 1 LIMIT 50")
      .pluck()
      .all() as string[],
  };
}

/** The summary row of one session, or undefined. */
export function sessionSummary(db: Db, sessionId: string): SessionRow | undefined {
  return db.$client.prepare(`SELECT ${COLUMNS} FROM session_summaries WHERE session_id = ?`).get(sessionId) as
    SessionRow | undefined;
}

type RawTurn = Omit<TurnRow, "causes"> & {
  cold: number | null;
  diverged: number;
  evicted: number;
  routedAway: number;
  unknown: number;
};

/** Everything the trace needs for a session (at most `max` turns and 4 × max tools), in time order. */
export function traceRows(
  db: Db,
  sessionId: string,
  max = 2_000,
): {
  turns: TurnRow[];
  tools: ToolRow[];
  reasoning: ReasoningRow[];
  sessionType: string | null;
  harness: string | null;
} {
  const c = db.$client;
  const raw = c
    .prepare(
      `SELECT r.id, r.request_id AS requestId, r.trajectory_id AS trajectoryId, r.parent_trajectory_id AS parentTrajectoryId, r.worker_id AS workerId,
         r.arrived_at AS arrivedAt, r.first_token_at AS firstTokenAt, r.finished_at AS finishedAt, r.input_tokens AS inputTokens, r.cached_tokens AS cachedTokens,
         r.output_tokens AS outputTokens, r.reasoning_tokens AS reasoningTokens, r.status, r.policy_versions AS policyVersions, r.source,
         r.cached_device_tokens AS cachedDevice, r.cached_host_tokens AS cachedHost, r.cached_disk_tokens AS cachedDisk, r.cached_shared_tokens AS cachedShared,
         r.prefetched_tokens AS prefetched, r.onboard_ms AS onboardMs,
         r.itl_ms_mean AS itlMsMean, r.itl_ms_p95 AS itlMsP95, r.preemptions,
         rc.cold, rc.diverged, rc.evicted, rc.routed_away AS routedAway, rc.unknown, rc.evicted_reason AS evictedReason, rc.retention_version AS retentionVersion,
         (SELECT d.candidates FROM route_decisions d WHERE d.request_id = r.request_id ORDER BY d.ts DESC LIMIT 1) AS candidates
       FROM requests r LEFT JOIN request_causes rc ON rc.rid = r.rowid WHERE r.session_id = ? ORDER BY r.arrived_at LIMIT ?`,
    )
    .all(sessionId, max) as RawTurn[];
  const turns: TurnRow[] = raw.map(({ cold, diverged, evicted, routedAway, unknown, candidates, ...t }) => ({
    ...t,
    policyVersions: decodePolicyVersions(t.policyVersions),
    candidates: candidates === null ? null : candidatesJson(candidates),
    causes: cold === null ? null : { cold, diverged, evicted, routed_away: routedAway, unknown },
  }));
  const tools = (
    c
      .prepare(
        `SELECT tool_call_id AS toolCallId, name, trajectory_id AS trajectoryId, request_id AS requestId, dispatched_at AS dispatchedAt, started_at AS startedAt,
           ended_at AS endedAt, status, output_tokens AS outputTokens, output_bytes AS outputBytes, truncated, budget_unit AS budgetUnit, budget_limit AS budgetLimit
         FROM tools WHERE session_id = ? ORDER BY started_at LIMIT ?`,
      )
      .all(sessionId, max * 4) as (Omit<ToolRow, "truncated"> & { truncated: number | null })[]
  ).map((t) => ({ ...t, truncated: t.truncated === null ? null : t.truncated === 1 }));
  const reasoning = c
    .prepare(
      `SELECT s.request_id AS requestId, s.tool_call_id AS toolCallId, s.tokens, s.started_at AS startedAt, s.ended_at AS endedAt
       FROM requests r JOIN reasoning_spans s ON s.request_id = r.request_id WHERE r.session_id = ? ORDER BY s.started_at LIMIT ?`,
    )
    .all(sessionId, max * 4) as ReasoningRow[];
  const meta = c
    .prepare("SELECT session_type AS sessionType, harness FROM requests WHERE session_id = ? LIMIT 1")
    .get(sessionId) as { sessionType: string | null; harness: string | null } | undefined;
  return { turns, tools, reasoning, sessionType: meta?.sessionType ?? null, harness: meta?.harness ?? null };
}

/** The routing decision of one request (newest if several), or undefined. */
export function decisionOf(db: Db, requestId: string) {
  const row = db.$client
    .prepare(
      `SELECT d.id, d.ts, d.request_id AS requestId, d.session_id AS sessionId, d.prompt_blocks AS promptBlocks, d.chosen_worker_id AS chosenWorkerId,
         d.chosen_overlap_blocks AS chosenOverlapBlocks, d.best_overlap_blocks AS bestOverlapBlocks, d.candidate_count AS candidateCount, d.candidates,
         d.overlap_credit AS overlapCredit, d.prefill_load_scale AS prefillLoadScale, d.temperature,
         (SELECT r.block_size FROM requests r WHERE r.request_id = d.request_id LIMIT 1) AS blockSize
       FROM route_decisions d WHERE d.request_id = ? ORDER BY d.ts DESC LIMIT 1`,
    )
    .get(requestId) as DecisionListRow | undefined;
  return row && withCandidatesJson(row);
}

/** Recomputed tokens by cause per bucket of `step` ms over [from, to), from the per-minute sums; empty buckets absent. */
export function causeBuckets(db: Db, from: number, to: number, step: number) {
  const s = Math.max(60_000, step);
  return db.$client
    .prepare(
      `SELECT minute - minute % @s AS t, sum(cold) AS cold, sum(diverged) AS diverged, sum(evicted) AS evicted, sum(routed_away) AS routedAway, sum(unknown) AS unknown
       FROM causes_1m WHERE minute >= @from - @from % 60000 AND minute < @to GROUP BY t ORDER BY t LIMIT 5000`,
    )
    .all({ from, to, s }) as {
    t: number;
    cold: number;
    diverged: number;
    evicted: number;
    routedAway: number;
    unknown: number;
  }[];
}

/** Inputs of the findings over sessions active in [from, to): first-block local hashes, TTFT means, tool-wait sums. */
export function findingInputs(db: Db, from: number, to: number) {
  const c = db.$client;
  const sessions = c
    .prepare(
      "SELECT session_id AS sessionId, local0, local1, diverged FROM session_summaries WHERE last_at >= ? AND first_at < ? AND local1 IS NOT NULL LIMIT 20000",
    )
    .all(from, to) as { sessionId: string; local0: string | null; local1: string | null; diverged: number }[];
  const ttft = c
    .prepare(
      `SELECT avg(CASE WHEN rc.diverged > 0 THEN r.first_token_at - r.arrived_at END) AS divergedMean, sum(rc.diverged > 0) AS divergedTurns,
         avg(CASE WHEN rc.recomputed * 10 < r.input_tokens THEN r.first_token_at - r.arrived_at END) AS cleanMean
       FROM request_causes rc JOIN requests r ON r.rowid = rc.rid WHERE rc.arrived_at >= ? AND rc.arrived_at < ? AND r.first_token_at IS NOT NULL`,
    )
    .get(from, to) as { divergedMean: number | null; divergedTurns: number | null; cleanMean: number | null };
  const waits = c
    .prepare(
      `SELECT count(*) AS waits, coalesce(sum(rc.held_tokens), 0) AS heldTokens, coalesce(sum(rc.survived_tokens), 0) AS survivedTokens,
         coalesce(sum(rc.wait_ms), 0) AS waitMs, coalesce(sum(r.prefetched_tokens), 0) AS prefetchedTokens,
         coalesce(sum(coalesce(r.cached_host_tokens, 0) + coalesce(r.cached_disk_tokens, 0) + coalesce(r.cached_shared_tokens, 0)), 0) AS onboardedTokens,
         coalesce(sum(r.onboard_ms), 0) AS onboardMs,
         coalesce(sum(coalesce(r.cached_host_tokens, 0) + coalesce(r.cached_disk_tokens, 0) + coalesce(r.cached_shared_tokens, 0) > 0), 0) AS onboardTurns
       FROM request_causes rc JOIN requests r ON r.rowid = rc.rid WHERE rc.arrived_at >= ? AND rc.arrived_at < ? AND rc.wait_ms IS NOT NULL`,
    )
    .get(from, to) as {
    waits: number;
    heldTokens: number;
    survivedTokens: number;
    waitMs: number;
    prefetchedTokens: number;
    onboardedTokens: number;
    onboardMs: number;
    onboardTurns: number;
  };
  return { sessions, ttft: { ...ttft, divergedTurns: ttft.divergedTurns ?? 0 }, waits };
}
