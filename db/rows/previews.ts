export type WindowRequestRow = {
  id: string;
  requestId: string;
  sessionId: string | null;
  trajectoryId: string | null;
  parentTrajectoryId: string | null;
  sessionType: string | null;
  harness: string | null;
  workerId: string | null;
  arrivedAt: number;
  firstTokenAt: number | null;
  finishedAt: number | null;
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  reasoningTokens: number | null;
  status: string;
  agentHints: string | null;
  blockSize: number | null;
  policyVersions: string | null;
  source: string | null;
  /** Local hashes when stored, else sequence hashes (8-byte big-endian each); null: none. */
  chain: Buffer | null;
  chainIsLocal: boolean;
  /** The first sequence hash (8 bytes), null: none. */
  firstSeq: Buffer | null;
};

export type FirstRunRow = {
  first: Buffer;
  last: Buffer;
  blocks: number;
  retentionClass: string | null;
  workerId: string;
  ts: number;
};

export type StoredRunRow = { parent: Buffer; last: Buffer; blocks: number; retentionClass: string | null };

export type WindowWorkerRow = {
  workerId: string;
  role: string | null;
  kvTotalBlocks: number | null;
  blockSize: number | null;
  /** The model it serves, as it reported it (null: not reported). */
  model: string | null;
};
