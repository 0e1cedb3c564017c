import type { StoredCauses, TurnRow } from "./sessions";

// Rows of db/queries/session-summaries.ts: what one session's summary is computed from, and the row stored.

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

/** A session_summaries row. */
export type SummaryRow = {
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
  local0: string | null;
  local1: string | null;
};
