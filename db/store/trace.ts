import { asc, desc, eq, sql } from "drizzle-orm";
import { candidatesJson } from "../codecs/candidates";
import { decodePolicyVersions } from "../codecs/request-json";
import { decisionColumns, type DecisionListRow } from "./routing";
import type { ReasoningRow, ToolRow, TurnRow } from "../rows/trace";
import { sessionTables } from "./session-tables";
import type { Store } from "./store";

// The session trace's rows on either engine: a session's turns with their causes and latest routing candidates, its
// tools and reasoning spans, in time order (ties in insertion order: SQLite's rowid, PostgreSQL's rid or ts and id).

export type TraceRows = {
  turns: TurnRow[];
  tools: ToolRow[];
  reasoning: ReasoningRow[];
  sessionType: string | null;
  harness: string | null;
};

/** Everything the trace needs for a session (at most `max` turns and 4 × max tools), in time order. */
export async function traceRows(st: Store, sessionId: string, max = 2_000): Promise<TraceRows> {
  const { requests: r, requestCauses: rc, routeDecisions: d, tools: t, reasoningSpans: sp } = sessionTables(st);
  const latestCandidates = st.db
    .select({ c: d.candidates })
    .from(d)
    .where(eq(d.requestId, r.requestId))
    .orderBy(desc(d.ts))
    .limit(1);
  const turnsQ = st.db
    .select({
      id: r.id,
      requestId: r.requestId,
      trajectoryId: r.trajectoryId,
      parentTrajectoryId: r.parentTrajectoryId,
      workerId: r.workerId,
      arrivedAt: r.arrivedAt,
      firstTokenAt: r.firstTokenAt,
      finishedAt: r.finishedAt,
      inputTokens: r.inputTokens,
      cachedTokens: r.cachedTokens,
      outputTokens: r.outputTokens,
      reasoningTokens: r.reasoningTokens,
      status: r.status,
      policyVersions: r.policyVersions,
      source: r.source,
      cachedDevice: r.cachedDeviceTokens,
      cachedHost: r.cachedHostTokens,
      cachedDisk: r.cachedDiskTokens,
      cachedShared: r.cachedSharedTokens,
      prefetched: r.prefetchedTokens,
      onboardMs: r.onboardMs,
      itlMsMean: r.itlMsMean,
      itlMsP95: r.itlMsP95,
      preemptions: r.preemptions,
      cold: rc.cold,
      diverged: rc.diverged,
      evicted: rc.evicted,
      routedAway: rc.routedAway,
      unknown: rc.unknown,
      evictedReason: rc.evictedReason,
      retentionVersion: rc.retentionVersion,
      candidates: sql<string | null>`(${latestCandidates})`,
    })
    .from(r)
    .leftJoin(rc, eq(rc.rid, r.rid))
    .where(eq(r.sessionId, sessionId))
    .orderBy(asc(r.arrivedAt), asc(r.rid))
    .limit(max);
  // SQLite: tools_session's order within a start time is the rowid's; PostgreSQL has none, so ts then id.
  const toolTies = st.engine === "sqlite" ? [sql`${t}.rowid`] : [asc(t.ts), asc(t.id)];
  const toolsQ = st.db
    .select({
      toolCallId: t.toolCallId,
      name: t.name,
      trajectoryId: t.trajectoryId,
      requestId: t.requestId,
      dispatchedAt: t.dispatchedAt,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      status: t.status,
      outputTokens: t.outputTokens,
      outputBytes: t.outputBytes,
      truncated: t.truncated,
      budgetUnit: t.budgetUnit,
      budgetLimit: t.budgetLimit,
    })
    .from(t)
    .where(eq(t.sessionId, sessionId))
    .orderBy(asc(t.startedAt), ...toolTies)
    .limit(max * 4);
  const reasoningQ = st.db
    .select({
      requestId: sp.requestId,
      toolCallId: sp.toolCallId,
      tokens: sp.tokens,
      startedAt: sp.startedAt,
      endedAt: sp.endedAt,
    })
    .from(r)
    .innerJoin(sp, eq(sp.requestId, r.requestId))
    .where(eq(r.sessionId, sessionId))
    .orderBy(asc(sp.startedAt), ...(st.engine === "sqlite" ? [] : [asc(sp.ts), asc(sp.id)]))
    .limit(max * 4);
  const metaQ = st.db
    .select({ sessionType: r.sessionType, harness: r.harness })
    .from(r)
    .where(eq(r.sessionId, sessionId))
    .orderBy(asc(r.arrivedAt), asc(r.rid))
    .limit(1);
  const [raw, tools, reasoning, [meta]] = await Promise.all([turnsQ, toolsQ, reasoningQ, metaQ]);
  const turns: TurnRow[] = raw.map(({ cold, diverged, evicted, routedAway, unknown, candidates, ...turn }) => ({
    ...turn,
    policyVersions: decodePolicyVersions(turn.policyVersions),
    candidates: candidates === null ? null : candidatesJson(candidates),
    causes:
      cold === null
        ? null
        : { cold, diverged: diverged!, evicted: evicted!, routed_away: routedAway!, unknown: unknown! },
  }));
  return { turns, tools, reasoning, sessionType: meta?.sessionType ?? null, harness: meta?.harness ?? null };
}

/** The routing decision of one request (newest if several), or undefined. */
export async function decisionOf(st: Store, requestId: string): Promise<DecisionListRow | undefined> {
  const { requests: r, routeDecisions: d } = sessionTables(st);
  const blockSize = st.db.select({ b: r.blockSize }).from(r).where(eq(r.requestId, d.requestId)).limit(1);
  const [row] = await st.db
    .select({
      ...decisionColumns(d),
      blockSize: sql<number | null>`(${blockSize})`,
    })
    .from(d)
    .where(eq(d.requestId, requestId))
    .orderBy(desc(d.ts))
    .limit(1);
  return row && { ...row, candidates: candidatesJson(row.candidates) };
}
