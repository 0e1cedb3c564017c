import type { assembleSession, ReasoningRow, Tool, Turn } from "./session-assembly";

// The public session export (`switchyard.session.v1`): every key snake_case like the ingest contract; times Unix ms,
// durations ms. The README documents it field by field; session-export.test.ts walks an export for camelCase keys.

type Trace = ReturnType<typeof assembleSession> & {
  sessionId: string;
  harness: string | null;
  sessionType: string | null;
};
/** A turn's full chains as decimal u64 strings (null: the request carried no such list). */
export type TurnChains = { sequence_hashes: string[] | null; local_hashes: string[] | null };

function exportTotals(t: Trace["totals"]) {
  return {
    turns: t.turns,
    attributed_turns: t.attributedTurns,
    input_tokens: t.inputTokens,
    cached_tokens: t.cachedTokens,
    output_tokens: t.outputTokens,
    reasoning_tokens: t.reasoningTokens,
    cached_share: t.cachedShare,
    recomputed: t.causes,
    ttft_p50_ms: t.ttftP50,
    tool_calls: t.toolCalls,
    tool_wait_ms: t.toolWaitMs,
    first_at: t.from,
    last_at: t.to,
  };
}

function exportTurn(u: Turn) {
  return {
    request_id: u.requestId,
    harness_request_id: u.harnessRequestId,
    arrived_at: u.arrivedAt,
    first_token_at: u.firstTokenAt,
    finished_at: u.finishedAt,
    status: u.status,
    input_tokens: u.inputTokens,
    cached_tokens: u.cachedTokens,
    output_tokens: u.outputTokens,
    reasoning_tokens: u.reasoningTokens,
    worker_id: u.workerId,
    runner_up: u.runnerUp && {
      worker_id: u.runnerUp.workerId,
      cost: u.runnerUp.cost,
      overlap_blocks: u.runnerUp.overlapBlocks,
    },
    policy_versions: u.policyVersions,
    recomputed: u.causes,
    evicted_reason: u.evictedReason,
    retention_version: u.retentionVersion,
    itl_ms_mean: u.itlMsMean,
    itl_ms_p95: u.itlMsP95,
    preemptions: u.preemptions,
    ...(u.cachedFrom.device === null
      ? {}
      : {
          cached_tokens_by_tier: {
            device: u.cachedFrom.device,
            host: u.cachedFrom.host ?? 0,
            disk: u.cachedFrom.disk ?? 0,
            shared: u.cachedFrom.shared ?? 0,
          },
        }),
    ...(u.cachedFrom.prefetched === null ? {} : { prefetched_tokens: u.cachedFrom.prefetched }),
    ...(u.onboardMs === null ? {} : { onboard_ms: u.onboardMs }),
  };
}

function exportReasoning(r: ReasoningRow) {
  return {
    request_id: r.requestId,
    tool_call_id: r.toolCallId,
    tokens: r.tokens,
    started_at: r.startedAt,
    ended_at: r.endedAt,
  };
}

function exportTool(t: Tool) {
  return {
    tool_call_id: t.toolCallId,
    name: t.name,
    trajectory_id: t.trajectoryId,
    request_id: t.requestId,
    dispatched_at: t.dispatchedAt,
    started_at: t.startedAt,
    ended_at: t.endedAt,
    status: t.status,
    output_tokens: t.outputTokens,
    output_bytes: t.outputBytes,
    truncated: t.truncated,
    budget: t.budgetUnit !== null && t.budgetLimit !== null ? { unit: t.budgetUnit, limit: t.budgetLimit } : null,
    early_dispatch_ms: t.earlyGainMs,
    reasoning: t.reasoning.map(exportReasoning),
  };
}

/**
 * The export document of a session: trajectories with turns (tokens, worker, policy versions, per-cause tokens), tools
 * and reasoning. With `chains` (by request id), each turn also carries its full sequence_hashes and local_hashes.
 */
export function sessionExport(t: Trace, chains?: ReadonlyMap<string, TurnChains>) {
  return {
    schema: "switchyard.session.v1",
    session: { id: t.sessionId, harness: t.harness, session_type: t.sessionType, totals: exportTotals(t.totals) },
    trajectories: t.lanes.map((l) => ({
      trajectory_id: l.trajectoryId,
      parent_trajectory_id: l.parentTrajectoryId,
      role: l.role,
      turns: l.turns.map((u) => ({
        ...exportTurn(u),
        ...(chains && (chains.get(u.requestId) ?? { sequence_hashes: null, local_hashes: null })),
      })),
      tools: l.tools.map(exportTool),
      reasoning: l.reasoning.map(exportReasoning),
    })),
  };
}
