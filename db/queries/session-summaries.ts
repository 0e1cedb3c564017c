import { summarizeTurns, type SummaryTurn } from "../../server/analysis/session-summary";
import type { Db } from "../client";
import { decodeHashes, HASH_BYTES } from "../chain-codec";
import { chainsOf } from "./chains";

// Rebuilds one session_summaries row from the session's requests, causes and tools (the attribution job calls it).
// Turns are counted by summarizeTurns, so a call both the harness and the serving stack reported counts once, as on the trace.

/** Requests per session read for a summary (far beyond any real session; the trace shows at most 2,000). */
const MAX_TURNS = 100_000;

/** Recompute the summary row of a session; removes it when the session has no requests. */
export function rebuildSessionSummary(db: Db, sessionId: string): void {
  const c = db.$client;
  const meta = c
    .prepare("SELECT min(harness) AS harness, min(session_type) AS sessionType FROM requests WHERE session_id = ?")
    .get(sessionId) as {
    harness: string | null;
    sessionType: string | null;
  };
  const raw = c
    .prepare(
      `SELECT r.id, r.request_id AS requestId, r.trajectory_id AS trajectoryId, r.parent_trajectory_id AS parentTrajectoryId, r.arrived_at AS arrivedAt,
         r.first_token_at AS firstTokenAt, r.finished_at AS finishedAt, r.input_tokens AS inputTokens, r.cached_tokens AS cachedTokens,
         r.output_tokens AS outputTokens, r.status, r.source, rc.cold, rc.diverged, rc.evicted, rc.routed_away AS routedAway, rc.unknown
       FROM requests r LEFT JOIN request_causes rc ON rc.id = r.id WHERE r.session_id = ? ORDER BY r.arrived_at LIMIT ?`,
    )
    .all(sessionId, MAX_TURNS) as (Omit<SummaryTurn, "causes"> & {
    cold: number | null;
    diverged: number;
    evicted: number;
    routedAway: number;
    unknown: number;
  })[];
  const r = summarizeTurns(
    raw.map(({ cold, diverged, evicted, routedAway, unknown, ...t }) => ({
      ...t,
      causes: cold === null ? null : { cold, diverged, evicted, routed_away: routedAway, unknown },
    })),
  );
  if (!r) {
    c.prepare("DELETE FROM session_summaries WHERE session_id = ?").run(sessionId);
    return;
  }
  const tools = c
    .prepare(
      "SELECT count(*) AS n, coalesce(sum(max(0, coalesce(ended_at, started_at) - started_at)), 0) AS waitMs, max(coalesce(ended_at, started_at)) AS lastAt FROM tools WHERE session_id = ?",
    )
    .get(sessionId) as { n: number; waitMs: number; lastAt: number | null };
  const firstLocal = c
    .prepare(
      "SELECT id FROM requests WHERE session_id = ? AND parent_trajectory_id IS NULL AND local_hashes IS NOT NULL ORDER BY arrived_at LIMIT 1",
    )
    .pluck()
    .get(sessionId) as string | undefined;
  const local =
    firstLocal === undefined ? [] : decodeHashes(chainsOf(db, firstLocal)?.local?.subarray(0, 2 * HASH_BYTES));
  const [local0, local1] = [local[0] ?? null, local[1] ?? null];
  const lastAt = Math.max(r.lastAt, tools.lastAt ?? 0);
  c.prepare(
    `INSERT OR REPLACE INTO session_summaries (session_id, harness, session_type, first_at, last_at, turns, agents, subagents, input_tokens, cached_tokens,
       output_tokens, cached_share, cold, diverged, evicted, routed_away, unknown, ttft_p50, tool_calls, tool_wait_ms, errors, duration, local0, local1)
     VALUES (@sessionId, @harness, @sessionType, @firstAt, @lastAt, @turns, @agents, @subagents, @inputTokens, @cachedTokens, @outputTokens, @cachedShare,
       @cold, @diverged, @evicted, @routedAway, @unknown, @ttftP50, @toolCalls, @toolWaitMs, @errors, @duration, @local0, @local1)`,
  ).run({
    ...r,
    ...meta,
    sessionId,
    lastAt,
    toolCalls: tools.n,
    toolWaitMs: tools.waitMs,
    duration: lastAt - r.firstAt,
    local0,
    local1,
  });
}
