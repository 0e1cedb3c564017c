export type RequestRow = {
  rid: number;
  id: string;
  requestId: string;
  sessionId: string | null;
  trajectoryId: string | null;
  workerId: string | null;
  arrivedAt: number;
  firstTokenAt: number | null;
  finishedAt: number | null;
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  blockSize: number | null;
};

/** A request's causes row as stored (request_causes). */
export type CausesRow = {
  /** The requests rowid of the request judged. */
  rid: number;
  arrivedAt: number;
  recomputed: number;
  cold: number;
  diverged: number;
  evicted: number;
  routedAway: number;
  unknown: number;
  evictedReason: string | null;
  retentionVersion: number | null;
  heldTokens: number | null;
  waitMs: number | null;
  survivedTokens: number | null;
};
