import "server-only";
import type { Store } from "../../db/store/store";
import { traceRows } from "../../db/store/trace";
import { assembleSession, mergeHarnessTurns } from "../analysis/session-assembly";
import { AppError } from "../errors";

// The session trace over the store (either engine): one session's rows assembled into lanes, turns and tools.

/** One session assembled for the trace; NOT_FOUND when it has neither turns nor tools. */
export async function sessionTrace(s: Store, sessionId: string) {
  const rows = await traceRows(s, sessionId);
  if (rows.turns.length === 0 && rows.tools.length === 0) throw new AppError("NOT_FOUND", `no session ${sessionId}`);
  return {
    sessionId,
    harness: rows.harness,
    sessionType: rows.sessionType,
    ...assembleSession(mergeHarnessTurns(rows.turns), rows.tools, rows.reasoning),
  };
}
