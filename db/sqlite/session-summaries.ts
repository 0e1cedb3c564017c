import type { Db } from "./client";
import { decodeHashes, HASH_BYTES } from "../codecs/chains";
import type { SummaryInputs, SummaryRow } from "../rows/session-summaries";
import { chainsOf } from "./chains";

// The rows behind one session_summaries row: what a rebuild reads (the session's requests with their causes, its
// tools, the first local hashes) and the row it writes. The counting is server/analysis/session-summary.ts's; the
// attribution job rebuilds (server/jobs/session-summary.ts).

/** Requests per session read for a summary (far beyond any real session; the trace shows at most 2,000). */
const MAX_TURNS = 100_000;

/** What a session's summary is computed from. */
export function sessionSummaryInputs(db: Db, sessionId: string): SummaryInputs {
  const c = db.$client;
  const meta = c
    .prepare("SELECT min(harness) AS harness, min(session_type) AS sessionType FROM requests WHERE session_id = ?")
    .get(sessionId) as SummaryInputs["meta"];
  const raw = c
    .prepare(
      `SELECT r.id, r.request_id AS requestId, r.trajectory_id AS trajectoryId, r.parent_trajectory_id AS parentTrajectoryId, r.arrived_at AS arrivedAt,
         r.first_token_at AS firstTokenAt, r.finished_at AS finishedAt, r.input_tokens AS inputTokens, r.cached_tokens AS cachedTokens,
         r.output_tokens AS outputTokens, r.status, r.source, rc.cold, rc.diverged, rc.evicted, rc.routed_away AS routedAway, rc.unknown
       FROM requests r LEFT JOIN request_causes rc ON rc.rid = r.rowid WHERE r.session_id = ? ORDER BY r.arrived_at LIMIT ?`,
    )
    .all(sessionId, MAX_TURNS) as (Omit<SummaryInputs["turns"][number], "causes"> & {
    cold: number | null;
    diverged: number;
    evicted: number;
    routedAway: number;
    unknown: number;
  })[];
  const turns = raw.map(({ cold, diverged, evicted, routedAway, unknown, ...t }) => ({
    ...t,
    causes: cold === null ? null : { cold, diverged, evicted, routed_away: routedAway, unknown },
  }));
  const tools = c
    .prepare(
      "SELECT count(*) AS n, coalesce(sum(max(0, coalesce(ended_at, started_at) - started_at)), 0) AS waitMs, max(coalesce(ended_at, started_at)) AS lastAt FROM tools WHERE session_id = ?",
    )
    .get(sessionId) as SummaryInputs["tools"];
  const firstLocal = c
    .prepare(
      "SELECT id FROM requests WHERE session_id = ? AND parent_trajectory_id IS NULL AND local_hashes IS NOT NULL ORDER BY arrived_at LIMIT 1",
    )
    .pluck()
    .get(sessionId) as string | undefined;
  const local =
    firstLocal === undefined ? [] : decodeHashes(chainsOf(db, firstLocal)?.local?.subarray(0, 2 * HASH_BYTES));
  return { meta, turns, tools, local0: local[0] ?? null, local1: local[1] ?? null };
}

/** Writes (or replaces) a session's summary row. */
export function writeSessionSummary(db: Db, row: SummaryRow): void {
  db.$client
    .prepare(
      `INSERT OR REPLACE INTO session_summaries (session_id, harness, session_type, first_at, last_at, turns, agents, subagents, input_tokens, cached_tokens,
       output_tokens, cached_share, cold, diverged, evicted, routed_away, unknown, ttft_p50, tool_calls, tool_wait_ms, errors, duration, local0, local1)
     VALUES (@sessionId, @harness, @sessionType, @firstAt, @lastAt, @turns, @agents, @subagents, @inputTokens, @cachedTokens, @outputTokens, @cachedShare,
       @cold, @diverged, @evicted, @routedAway, @unknown, @ttftP50, @toolCalls, @toolWaitMs, @errors, @duration, @local0, @local1)`,
    )
    .run(row);
}

/** Removes a session's summary row (the session has no requests left). */
export function deleteSessionSummary(db: Db, sessionId: string): void {
  db.$client.prepare("DELETE FROM session_summaries WHERE session_id = ?").run(sessionId);
}
