// The counting behind a sessions-list row (docs/architecture.md), over the same turns the trace shows. Pure.
import { CAUSES, emptyCauses, type CauseTokens } from "../../lib/attribution";
import { quantile } from "../../lib/quantile";
import type { SummaryTurnRow } from "../../db/rows/session-summaries";
import { mergeHarnessTurns } from "./session-assembly";

/** What a summary needs of one stored request; causes null before attribution. */
export type SummaryTurn = SummaryTurnRow;

/**
 * A session's turn counts and sums for its list row. A model call the harness and the serving stack both reported
 * counts once (mergeHarnessTurns, as the trace does): its tokens, causes, TTFT and status are the serving stack's.
 * Agents are distinct trajectories (none = the main agent); firstAt/lastAt span arrivals and finishes; null without turns.
 */
export function summarizeTurns(rows: readonly SummaryTurn[]) {
  const turns = mergeHarnessTurns(rows);
  if (turns.length === 0) return null;
  const causes = emptyCauses();
  const agents = new Set<string>();
  const subagents = new Set<string>();
  const ttfts: number[] = [];
  let [input, cached, output, errors, firstAt, lastAt] = [0, 0, 0, 0, Infinity, -Infinity];
  for (const t of turns) {
    input += t.inputTokens;
    cached += t.cachedTokens;
    output += t.outputTokens;
    if (t.status !== "ok") errors++;
    agents.add(t.trajectoryId ?? "");
    if (t.parentTrajectoryId !== null && t.trajectoryId !== null) subagents.add(t.trajectoryId);
    if (t.firstTokenAt !== null) ttfts.push(t.firstTokenAt - t.arrivedAt);
    firstAt = Math.min(firstAt, t.arrivedAt);
    lastAt = Math.max(lastAt, t.finishedAt ?? t.arrivedAt);
    if (t.causes) for (const c of CAUSES) causes[c] += t.causes[c];
  }
  return {
    turns: turns.length,
    agents: agents.size,
    subagents: subagents.size,
    inputTokens: input,
    cachedTokens: cached,
    outputTokens: output,
    cachedShare: input > 0 ? cached / input : null,
    errors,
    firstAt,
    lastAt,
    ttftP50: quantile(ttfts, 0.5),
    cold: causes.cold,
    diverged: causes.diverged,
    evicted: causes.evicted,
    routedAway: causes.routed_away,
    unknown: causes.unknown,
  };
}
