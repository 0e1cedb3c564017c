import type { assembleSession } from "./sessions";

type Trace = ReturnType<typeof assembleSession> & { sessionId: string; harness: string | null; sessionType: string | null };
/** A turn's full chains as decimal u64 strings (null: the request carried no such list). */
export type TurnChains = { sequence_hashes: string[] | null; local_hashes: string[] | null };

/**
 * The export document of a session: trajectories with turns (tokens, worker, policy versions, per-cause tokens), tools
 * and reasoning. With `chains` (by request id), each turn also carries its full sequence_hashes and local_hashes.
 */
export function sessionExport(t: Trace, chains?: ReadonlyMap<string, TurnChains>) {
  return {
    schema: "switchyard.session.v1",
    session: { id: t.sessionId, harness: t.harness, session_type: t.sessionType, totals: t.totals },
    trajectories: t.lanes.map((l) => ({
      trajectory_id: l.trajectoryId,
      parent_trajectory_id: l.parentTrajectoryId,
      role: l.role,
      turns: l.turns.map((u) => ({
        request_id: u.requestId,
        arrived_at: u.arrivedAt,
        first_token_at: u.firstTokenAt,
        finished_at: u.finishedAt,
        status: u.status,
        input_tokens: u.inputTokens,
        cached_tokens: u.cachedTokens,
        output_tokens: u.outputTokens,
        reasoning_tokens: u.reasoningTokens,
        worker_id: u.workerId,
        runner_up: u.runnerUp,
        policy_versions: u.policyVersions,
        recomputed: u.causes,
        evicted_reason: u.evictedReason,
        retention_version: u.retentionVersion,
        ...(chains && (chains.get(u.requestId) ?? { sequence_hashes: null, local_hashes: null })),
      })),
      tools: l.tools.map(({ reasoning, ...tool }) => ({ ...tool, reasoning })),
      reasoning: l.reasoning,
    })),
  };
}
