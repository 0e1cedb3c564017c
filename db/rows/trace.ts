// Rows the session queries return (db/store/session-list.ts, trace.ts), read by server/analysis/session-assembly.ts.

/** A turn's recomputed prompt tokens per cause, as request_causes stores them (null on the turn: not attributed yet). */
export type StoredCauses = { cold: number; diverged: number; evicted: number; routed_away: number; unknown: number };

export type TurnRow = {
  id: string;
  requestId: string;
  trajectoryId: string | null;
  parentTrajectoryId: string | null;
  workerId: string | null;
  arrivedAt: number;
  firstTokenAt: number | null;
  finishedAt: number | null;
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  reasoningTokens: number | null;
  /** Inter-token latency over the turn's decode (ms) and engine preemptions; absent or null when not reported. */
  itlMsMean?: number | null;
  itlMsP95?: number | null;
  preemptions?: number | null;
  status: string;
  policyVersions: string | null;
  causes: StoredCauses | null;
  evictedReason: string | null;
  retentionVersion: number | null;
  candidates: string | null;
  /** Who reported the turn: "otlp" for the harness's own telemetry; other values (or none) are the serving stack. */
  source?: string | null;
  /** Set on a serving-stack turn the harness reported too: the harness's request id for it. */
  harnessRequestId?: string | null;
  /** Cached tokens by storage tier and prefetched tokens, when the request event carried them (null otherwise). */
  cachedDevice?: number | null;
  cachedHost?: number | null;
  cachedDisk?: number | null;
  cachedShared?: number | null;
  prefetched?: number | null;
  /** Time the turn waited for its blocks from lower tiers (ms), when reported. */
  onboardMs?: number | null;
};

export type ToolRow = {
  toolCallId: string;
  name: string;
  trajectoryId: string | null;
  requestId: string | null;
  dispatchedAt: number | null;
  startedAt: number;
  endedAt: number | null;
  status: string;
  outputTokens: number | null;
  outputBytes: number | null;
  truncated: boolean | null;
  budgetUnit: string | null;
  budgetLimit: number | null;
};

export type ReasoningRow = {
  requestId: string;
  toolCallId: string | null;
  tokens: number;
  startedAt: number;
  endedAt: number;
};
