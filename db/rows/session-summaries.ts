import type { StoredCauses, TurnRow } from "./trace";

// Rows of db/sqlite/session-summaries.ts: what one session's summary is computed from, and the row stored.

/** One stored request as a summary counts it; causes null before attribution. */
export type SummaryTurnRow = Pick<
  TurnRow,
  | "id"
  | "requestId"
  | "trajectoryId"
  | "parentTrajectoryId"
  | "arrivedAt"
  | "firstTokenAt"
  | "finishedAt"
  | "inputTokens"
  | "cachedTokens"
  | "outputTokens"
  | "status"
  | "source"
> & { causes: StoredCauses | null };

/** A session's requests (in arrival order), tools and first two local hashes of its main agent. */
export type SummaryInputs = {
  meta: { harness: string | null; sessionType: string | null };
  turns: SummaryTurnRow[];
  tools: { n: number; waitMs: number; lastAt: number | null };
  local0: string | null;
  local1: string | null;
};

/** A sessions-list row: one session_summaries row as the list reads it. */
export type SessionRow = {
  sessionId: string;
  harness: string | null;
  sessionType: string | null;
  firstAt: number;
  lastAt: number;
  turns: number;
  agents: number;
  subagents: number;
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  cachedShare: number | null;
  cold: number;
  diverged: number;
  evicted: number;
  routedAway: number;
  unknown: number;
  ttftP50: number | null;
  toolCalls: number;
  toolWaitMs: number;
  errors: number;
  duration: number;
};

/** A session_summaries row as a rebuild writes it: the list row and the main agent's first two local hashes. */
export type SummaryRow = SessionRow & { local0: string | null; local1: string | null };
