// Session assembly (docs/architecture.md): turns grouped by trajectory, tool calls and reasoning spans between them. Pure.
import { CAUSES, emptyCauses, type CauseTokens } from "../../lib/attribution";
import { quantile } from "../../lib/quantile";
import { runnerUp, type RouteCandidate } from "./routing";
import type { TurnRow, ToolRow, ReasoningRow } from "../../db/rows/trace";
export type { TurnRow, ToolRow, ReasoningRow } from "../../db/rows/trace";

const MAIN = "(main)";

/** Tokens per ms of prefill at the fastest rate seen (recomputed tokens over TTFT); null when no turn says. */
export function prefillRate(turns: readonly TurnRow[]): number | null {
  let best: number | null = null;
  for (const t of turns) {
    if (t.firstTokenAt === null) continue;
    const ttft = t.firstTokenAt - t.arrivedAt;
    const recomputed = t.inputTokens - t.cachedTokens;
    if (ttft > 0 && recomputed > 0 && (best === null || recomputed / ttft > best)) best = recomputed / ttft;
  }
  return best;
}

/**
 * A turn's time split. TTFT covers queueing and prefill; without a prefill-start timestamp the prefill part is estimated
 * as recomputed tokens at `rate` (the fastest prefill seen in the session), capped at TTFT, and queueing is the rest.
 * Decode runs from first token to finish. ms; null where a timestamp is missing.
 */
export function splitTurn(
  t: TurnRow,
  rate: number | null,
): { queue: number | null; prefill: number | null; decode: number | null } {
  const ttft = t.firstTokenAt === null ? null : Math.max(0, t.firstTokenAt - t.arrivedAt);
  const decode = t.firstTokenAt !== null && t.finishedAt !== null ? Math.max(0, t.finishedAt - t.firstTokenAt) : null;
  if (ttft === null) return { queue: null, prefill: null, decode };
  const prefill = rate ? Math.min(ttft, Math.round((t.inputTokens - t.cachedTokens) / rate)) : ttft;
  return { queue: ttft - prefill, prefill, decode };
}

/** The calling turn's stream end minus the tool start when the tool started first (ms gained by early dispatch), else 0. */
export function earlyDispatchGain(tool: Pick<ToolRow, "startedAt">, callerFinishedAt: number | null): number {
  return callerFinishedAt !== null && callerFinishedAt > tool.startedAt ? callerFinishedAt - tool.startedAt : 0;
}

function describeTurn(t: TurnRow, rate: number | null) {
  const candidates = t.candidates ? (JSON.parse(t.candidates) as RouteCandidate[]) : [];
  const chosen = candidates.find((c) => c.worker_id === t.workerId) ?? null;
  const r = t.workerId ? runnerUp(t.workerId, candidates) : null;
  return {
    id: t.id,
    requestId: t.requestId,
    workerId: t.workerId,
    arrivedAt: t.arrivedAt,
    firstTokenAt: t.firstTokenAt,
    finishedAt: t.finishedAt,
    status: t.status,
    inputTokens: t.inputTokens,
    cachedTokens: t.cachedTokens,
    outputTokens: t.outputTokens,
    reasoningTokens: t.reasoningTokens,
    itlMsMean: t.itlMsMean ?? null,
    itlMsP95: t.itlMsP95 ?? null,
    preemptions: t.preemptions ?? null,
    ttft: t.firstTokenAt === null ? null : t.firstTokenAt - t.arrivedAt,
    split: splitTurn(t, rate),
    chosen: chosen && { cost: chosen.cost, overlapBlocks: chosen.overlap_blocks },
    runnerUp: r && { workerId: r.worker_id, cost: r.cost, overlapBlocks: r.overlap_blocks },
    policyVersions: t.policyVersions ? (JSON.parse(t.policyVersions) as Record<string, number>) : null,
    causes: t.causes,
    evictedReason: t.evictedReason,
    retentionVersion: t.retentionVersion,
    harnessRequestId: t.harnessRequestId ?? null,
    fromHarness: t.source === HARNESS_SOURCE,
    cachedFrom: {
      device: t.cachedDevice ?? null,
      host: t.cachedHost ?? null,
      disk: t.cachedDisk ?? null,
      shared: t.cachedShared ?? null,
      prefetched: t.prefetched ?? null,
    },
    onboardMs: t.onboardMs ?? null,
  };
}

export type Turn = ReturnType<typeof describeTurn>;

/** The harness's telemetry (OTLP logs) as a turn's source. */
export const HARNESS_SOURCE = "otlp";
/** How far apart the harness's and the serving stack's start of one model call may be (network, queueing). */
export const MATCH_WINDOW_MS = 5_000;

/**
 * One model call reported by both the harness and the serving stack becomes one turn: the serving stack's (it knows
 * the worker, routing and cache), marked with the harness's request id. A pair matches on the same request id, or
 * else on equal input and output tokens with starts at most MATCH_WINDOW_MS apart (the nearest wins; each turn pairs
 * once). Harness turns without a partner stay as they are.
 */
export function mergeHarnessTurns<
  T extends Pick<TurnRow, "requestId" | "arrivedAt" | "inputTokens" | "outputTokens" | "source" | "harnessRequestId">,
>(turns: readonly T[]): T[] {
  const cluster = turns.filter((t) => t.source !== HARNESS_SOURCE);
  const taken = new Set<T>();
  const merged = new Map<T, string>();
  const dropped = new Set<T>();
  const byRequest = new Map(cluster.map((t) => [t.requestId, t]));
  for (const h of turns) {
    if (h.source !== HARNESS_SOURCE) continue;
    let partner = byRequest.get(h.requestId);
    if (!partner || taken.has(partner)) {
      partner = undefined;
      let best = Infinity;
      for (const c of cluster) {
        const gap = Math.abs(c.arrivedAt - h.arrivedAt);
        if (
          taken.has(c) ||
          c.inputTokens !== h.inputTokens ||
          c.outputTokens !== h.outputTokens ||
          gap > MATCH_WINDOW_MS ||
          gap >= best
        )
          continue;
        partner = c;
        best = gap;
      }
    }
    if (!partner) continue;
    taken.add(partner);
    merged.set(partner, h.requestId);
    dropped.add(h);
  }
  return turns
    .filter((t) => !dropped.has(t))
    .map((t) => (merged.has(t) ? { ...t, harnessRequestId: merged.get(t)! } : t));
}
export type Tool = ToolRow & { earlyGainMs: number; reasoning: ReasoningRow[] };
export type Lane = {
  trajectoryId: string;
  parentTrajectoryId: string | null;
  depth: number;
  role: "main" | "subagent";
  turns: Turn[];
  tools: Tool[];
  reasoning: ReasoningRow[];
};

/**
 * Assemble a session: one lane per trajectory, parents before their subagents (depth-first, by first activity), turns
 * and tools in time order, reasoning spans attached to the tool call they explain (or to their turn's lane when they
 * name none). Totals over all turns; causes are null when no turn has been attributed yet.
 */
export function assembleSession(
  turns: readonly TurnRow[],
  tools: readonly ToolRow[],
  reasoning: readonly ReasoningRow[],
) {
  const rate = prefillRate(turns);
  const lanes = new Map<string, Lane>();
  const laneOf = (traj: string | null, parent: string | null): Lane => {
    const key = traj ?? MAIN;
    let l = lanes.get(key);
    if (!l)
      lanes.set(
        key,
        (l = {
          trajectoryId: key,
          parentTrajectoryId: parent,
          depth: 0,
          role: parent ? "subagent" : "main",
          turns: [],
          tools: [],
          reasoning: [],
        }),
      );
    if (parent && !l.parentTrajectoryId) Object.assign(l, { parentTrajectoryId: parent, role: "subagent" });
    return l;
  };
  const sorted = [...turns].sort((a, b) => a.arrivedAt - b.arrivedAt || (a.id < b.id ? -1 : 1));
  const turnLane = new Map<string, Lane>();
  const finishedAt = new Map<string, number | null>();
  for (const t of sorted) {
    const l = laneOf(t.trajectoryId, t.parentTrajectoryId);
    l.turns.push(describeTurn(t, rate));
    turnLane.set(t.requestId, l);
    finishedAt.set(t.requestId, t.finishedAt);
  }
  const byCall = new Map<string, ReasoningRow[]>();
  for (const r of reasoning) {
    if (r.toolCallId) byCall.set(r.toolCallId, [...(byCall.get(r.toolCallId) ?? []), r]);
    else turnLane.get(r.requestId)?.reasoning.push(r);
  }
  for (const tool of [...tools].sort((a, b) => a.startedAt - b.startedAt)) {
    const l = tool.trajectoryId
      ? laneOf(tool.trajectoryId, null)
      : (tool.requestId && turnLane.get(tool.requestId)) || laneOf(null, null);
    const gain = earlyDispatchGain(tool, tool.requestId ? (finishedAt.get(tool.requestId) ?? null) : null);
    l.tools.push({ ...tool, earlyGainMs: gain, reasoning: byCall.get(tool.toolCallId) ?? [] });
  }
  const ordered: Lane[] = [];
  const children = new Map<string | null, Lane[]>();
  const first = (l: Lane) => Math.min(l.turns[0]?.arrivedAt ?? Infinity, l.tools[0]?.startedAt ?? Infinity);
  for (const l of lanes.values()) {
    const p = l.parentTrajectoryId && lanes.has(l.parentTrajectoryId) ? l.parentTrajectoryId : null;
    children.set(p, [...(children.get(p) ?? []), l]);
  }
  const walk = (parent: string | null, depth: number) => {
    for (const l of (children.get(parent) ?? []).sort((a, b) => first(a) - first(b))) {
      l.depth = depth;
      ordered.push(l);
      walk(l.trajectoryId, depth + 1);
    }
  };
  walk(null, 0);
  return { lanes: ordered, totals: sessionTotals(turns, tools), prefillRate: rate };
}

/** Session totals: tokens, causes (null before attribution), TTFT p50, tool wait and span. */
export function sessionTotals(turns: readonly TurnRow[], tools: readonly ToolRow[]) {
  const causes = emptyCauses();
  let attributed = 0;
  let input = 0;
  let cached = 0;
  let output = 0;
  let reasoningTokens = 0;
  const ttfts: number[] = [];
  let from = Infinity;
  let to = -Infinity;
  for (const t of turns) {
    input += t.inputTokens;
    cached += t.cachedTokens;
    output += t.outputTokens;
    reasoningTokens += t.reasoningTokens ?? 0;
    if (t.firstTokenAt !== null) ttfts.push(t.firstTokenAt - t.arrivedAt);
    from = Math.min(from, t.arrivedAt);
    to = Math.max(to, t.finishedAt ?? t.arrivedAt);
    if (t.causes) {
      attributed++;
      for (const c of CAUSES) causes[c] += t.causes[c];
    }
  }
  let toolWaitMs = 0;
  for (const t of tools) {
    toolWaitMs += Math.max(0, (t.endedAt ?? t.startedAt) - t.startedAt);
    from = Math.min(from, t.startedAt);
    to = Math.max(to, t.endedAt ?? t.startedAt);
  }
  return {
    turns: turns.length,
    attributedTurns: attributed,
    inputTokens: input,
    cachedTokens: cached,
    outputTokens: output,
    reasoningTokens,
    cachedShare: input > 0 ? cached / input : null,
    causes: attributed > 0 ? causes : null,
    ttftP50: quantile(ttfts, 0.5),
    toolCalls: tools.length,
    toolWaitMs,
    from: Number.isFinite(from) ? from : null,
    to: Number.isFinite(to) ? to : null,
  };
}
