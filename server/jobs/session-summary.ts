import type { Db } from "../../db/sqlite/client";
import { deleteSessionSummary, sessionSummaryInputs, writeSessionSummary } from "../../db/sqlite/session-summaries";
import type { SummaryInputs, SummaryRow } from "../../db/rows/session-summaries";
import { summarizeTurns } from "../analysis/session-summary";

// Rebuilds one session_summaries row from the session's requests, causes and tools (the attribution job calls it).
// Turns are counted by summarizeTurns, so a call both the harness and the serving stack reported counts once, as on the trace.

/** Recompute the summary row of a session; removes it when the session has no requests. */
export function rebuildSessionSummary(db: Db, sessionId: string): void {
  const row = summaryRowOf(sessionId, sessionSummaryInputs(db, sessionId));
  if (!row) return deleteSessionSummary(db, sessionId);
  writeSessionSummary(db, row);
}

/** A session's summary row from what it is computed from (either engine); null when the session has no requests. */
export function summaryRowOf(
  sessionId: string,
  { meta, turns, tools, local0, local1 }: SummaryInputs,
): SummaryRow | null {
  const r = summarizeTurns(turns);
  if (!r) return null;
  const lastAt = Math.max(r.lastAt, tools.lastAt ?? 0);
  return {
    ...r,
    ...meta,
    sessionId,
    lastAt,
    toolCalls: tools.n,
    toolWaitMs: tools.waitMs,
    duration: lastAt - r.firstAt,
    local0,
    local1,
  };
}
