import type { Db } from "../client";
import { decodeHashes, HASH_BYTES } from "../../server/ingest/chain-codec";
import { chainsOf } from "./chains";

// Rebuilds one session_summaries row from the session's requests, causes and tools (the attribution job calls it).

/** The median of a list of numbers (lower middle for even counts); null when empty. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const v = [...values].sort((a, b) => a - b);
  return v[Math.floor((v.length - 1) / 2)]!;
}

/** Recompute the summary row of a session; removes it when the session has no requests. */
export function rebuildSessionSummary(db: Db, sessionId: string): void {
  const c = db.$client;
  const r = c
    .prepare(
      `SELECT min(harness) AS harness, min(session_type) AS sessionType, min(arrived_at) AS firstAt, max(coalesce(finished_at, arrived_at)) AS lastAt,
         count(*) AS turns, count(DISTINCT coalesce(trajectory_id, '')) AS agents,
         count(DISTINCT CASE WHEN parent_trajectory_id IS NOT NULL THEN trajectory_id END) AS subagents,
         sum(input_tokens) AS inputTokens, sum(cached_tokens) AS cachedTokens, sum(output_tokens) AS outputTokens, sum(status <> 'ok') AS errors
       FROM requests WHERE session_id = ?`,
    )
    .get(sessionId) as Record<string, number | string | null>;
  if (!r.turns) {
    c.prepare("DELETE FROM session_summaries WHERE session_id = ?").run(sessionId);
    return;
  }
  const causes = c
    .prepare(
      `SELECT coalesce(sum(cold), 0) AS cold, coalesce(sum(diverged), 0) AS diverged, coalesce(sum(evicted), 0) AS evicted,
         coalesce(sum(routed_away), 0) AS routedAway, coalesce(sum(unknown), 0) AS unknown FROM request_causes WHERE session_id = ?`,
    )
    .get(sessionId) as Record<string, number>;
  const ttfts = c.prepare("SELECT first_token_at - arrived_at FROM requests WHERE session_id = ? AND first_token_at IS NOT NULL").pluck().all(sessionId) as number[];
  const tools = c
    .prepare("SELECT count(*) AS n, coalesce(sum(max(0, coalesce(ended_at, started_at) - started_at)), 0) AS waitMs, max(coalesce(ended_at, started_at)) AS lastAt FROM tools WHERE session_id = ?")
    .get(sessionId) as { n: number; waitMs: number; lastAt: number | null };
  const firstLocal = c
    .prepare("SELECT id FROM requests WHERE session_id = ? AND parent_trajectory_id IS NULL AND local_hashes IS NOT NULL ORDER BY arrived_at LIMIT 1")
    .pluck()
    .get(sessionId) as string | undefined;
  const local = firstLocal === undefined ? [] : decodeHashes(chainsOf(db, firstLocal)?.local?.subarray(0, 2 * HASH_BYTES));
  const [local0, local1] = [local[0] ?? null, local[1] ?? null];
  const input = Number(r.inputTokens);
  const lastAt = Math.max(Number(r.lastAt), tools.lastAt ?? 0);
  c.prepare(
    `INSERT OR REPLACE INTO session_summaries (session_id, harness, session_type, first_at, last_at, turns, agents, subagents, input_tokens, cached_tokens,
       output_tokens, cached_share, cold, diverged, evicted, routed_away, unknown, ttft_p50, tool_calls, tool_wait_ms, errors, duration, local0, local1)
     VALUES (@sessionId, @harness, @sessionType, @firstAt, @lastAt, @turns, @agents, @subagents, @inputTokens, @cachedTokens, @outputTokens, @cachedShare,
       @cold, @diverged, @evicted, @routedAway, @unknown, @ttftP50, @toolCalls, @toolWaitMs, @errors, @duration, @local0, @local1)`,
  ).run({
    ...r,
    ...causes,
    sessionId,
    lastAt,
    cachedShare: input > 0 ? Number(r.cachedTokens) / input : null,
    ttftP50: median(ttfts),
    toolCalls: tools.n,
    toolWaitMs: tools.waitMs,
    duration: lastAt - Number(r.firstAt),
    local0,
    local1,
  });
}
