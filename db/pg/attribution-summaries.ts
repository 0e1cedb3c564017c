import type postgres from "postgres";
import { decodeHashes, HASH_BYTES } from "../codecs/chains";
import type { SummaryInputs, SummaryRow } from "../rows/session-summaries";
import { wholeChainsPg, type StoredChains } from "./chains";

// session_summaries on PostgreSQL: what one rebuild reads and the row it writes, as db/sqlite/session-summaries.ts on
// SQLite (same order: arrival, then insertion among equal arrivals; text compared bytewise, as SQLite's).

type Q = postgres.Sql | postgres.ReservedSql;

const MAX_TURNS = 100_000;

type RawTurn = Omit<SummaryInputs["turns"][number], "causes"> & {
  cold: number | null;
  diverged: number;
  evicted: number;
  routedAway: number;
  unknown: number;
};

/** What a session's summary is computed from. */
export async function sessionSummaryInputsPg(q: Q, sessionId: string): Promise<SummaryInputs> {
  const [[meta], raw, [tools], [first]] = await Promise.all([
    q<
      SummaryInputs["meta"][]
    >`SELECT min(harness COLLATE "C") AS harness, min(session_type COLLATE "C") AS "sessionType"
      FROM requests WHERE session_id = ${sessionId}`,
    q<RawTurn[]>`SELECT r.id, r.request_id AS "requestId", r.trajectory_id AS "trajectoryId",
        r.parent_trajectory_id AS "parentTrajectoryId", r.arrived_at AS "arrivedAt", r.first_token_at AS "firstTokenAt",
        r.finished_at AS "finishedAt", r.input_tokens AS "inputTokens", r.cached_tokens AS "cachedTokens",
        r.output_tokens AS "outputTokens", r.status, r.source, rc.cold, rc.diverged, rc.evicted,
        rc.routed_away AS "routedAway", rc.unknown
      FROM requests r LEFT JOIN request_causes rc ON rc.rid = r.rid WHERE r.session_id = ${sessionId}
      ORDER BY r.arrived_at, r.rid LIMIT ${MAX_TURNS}`,
    q<SummaryInputs["tools"][]>`SELECT count(*)::int8 AS n,
        coalesce(sum(greatest(0, coalesce(ended_at, started_at) - started_at)), 0)::int8 AS "waitMs",
        max(coalesce(ended_at, started_at)) AS "lastAt"
      FROM tools WHERE session_id = ${sessionId}`,
    q<StoredChains[]>`SELECT id, chain_base AS base, seq_shared AS "seqShared", local_shared AS "localShared",
        seq_count AS "seqCount", local_count AS "localCount", NULL::bytea AS seq,
        substring(local_hashes FROM 1 FOR ${2 * HASH_BYTES}) AS local
      FROM requests WHERE session_id = ${sessionId} AND parent_trajectory_id IS NULL AND local_hashes IS NOT NULL
      ORDER BY arrived_at, rid LIMIT 1`,
  ]);
  const turns = raw.map(({ cold, diverged, evicted, routedAway, unknown, ...t }) => ({
    ...t,
    causes: cold === null ? null : { cold, diverged, evicted, routed_away: routedAway, unknown },
  }));
  // Two hashes are all it needs: read from its chain base's chain when the row holds only its own.
  const firstTwo = first && (await wholeChainsPg(q, [{ ...first, localCount: Math.min(2, first.localCount ?? 2) }]));
  const local = first === undefined ? [] : decodeHashes(firstTwo!.get(first.id)!.local);
  return {
    meta: meta ?? { harness: null, sessionType: null },
    turns,
    tools: tools!,
    local0: local[0] ?? null,
    local1: local[1] ?? null,
  };
}

/** Writes (or replaces) a session's summary row. */
export async function writeSessionSummaryPg(q: Q, r: SummaryRow): Promise<void> {
  await q`INSERT INTO session_summaries (session_id, harness, session_type, first_at, last_at, turns, agents, subagents,
      input_tokens, cached_tokens, output_tokens, cached_share, cold, diverged, evicted, routed_away, unknown, ttft_p50,
      tool_calls, tool_wait_ms, errors, duration, local0, local1)
    VALUES (${r.sessionId}, ${r.harness}, ${r.sessionType}, ${r.firstAt}, ${r.lastAt}, ${r.turns}, ${r.agents},
      ${r.subagents}, ${r.inputTokens}, ${r.cachedTokens}, ${r.outputTokens}, ${r.cachedShare}, ${r.cold}, ${r.diverged},
      ${r.evicted}, ${r.routedAway}, ${r.unknown}, ${r.ttftP50}, ${r.toolCalls}, ${r.toolWaitMs}, ${r.errors},
      ${r.duration}, ${r.local0}, ${r.local1})
    ON CONFLICT (session_id) DO UPDATE SET harness = excluded.harness, session_type = excluded.session_type,
      first_at = excluded.first_at, last_at = excluded.last_at, turns = excluded.turns, agents = excluded.agents,
      subagents = excluded.subagents, input_tokens = excluded.input_tokens, cached_tokens = excluded.cached_tokens,
      output_tokens = excluded.output_tokens, cached_share = excluded.cached_share, cold = excluded.cold,
      diverged = excluded.diverged, evicted = excluded.evicted, routed_away = excluded.routed_away,
      unknown = excluded.unknown, ttft_p50 = excluded.ttft_p50, tool_calls = excluded.tool_calls,
      tool_wait_ms = excluded.tool_wait_ms, errors = excluded.errors, duration = excluded.duration,
      local0 = excluded.local0, local1 = excluded.local1`;
}

/** Removes a session's summary row (the session has no requests left). */
export async function deleteSessionSummaryPg(q: Q, sessionId: string): Promise<void> {
  await q`DELETE FROM session_summaries WHERE session_id = ${sessionId}`;
}
