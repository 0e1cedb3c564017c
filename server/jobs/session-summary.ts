import type { Db } from "../../db/client";
import { deleteSessionSummary, sessionSummaryInputs, writeSessionSummary } from "../../db/queries/session-summaries";
import { summarizeTurns } from "../analysis/session-summary";

// Rebuilds one session_summaries row from the session's requests, causes and tools (the attribution job calls it).
// Turns are counted by summarizeTurns, so a call both the harness and the serving stack reported counts once, as on the trace.

/** Recompute the summary row of a session; removes it when the session has no requests. */
export function rebuildSessionSummary(db: Db, sessionId: string): void {
  const { meta, turns, tools, local0, local1 } = sessionSummaryInputs(db, sessionId);
  const r = summarizeTurns(turns);
  if (!r) return deleteSessionSummary(db, sessionId);
  const lastAt = Math.max(r.lastAt, tools.lastAt ?? 0);
  writeSessionSummary(db, {
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
