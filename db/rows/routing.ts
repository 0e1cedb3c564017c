// Rows of the routing reads (db/sqlite/routing.ts, db/sqlite/rollups.ts): per-bucket sums the analysis turns into series.

/** Decisions won by one worker in one bucket, with the blocks routing lost (best − chosen overlap) and the prompt blocks. */
export type DecisionBucket = {
  t: number;
  workerId: string;
  decisions: number;
  lostBlocks: number;
  promptBlocks: number;
};

/** Token sums of one bucket's decisions that chose a worker without a known block size, through their requests' sizes. */
export type RequestSizedBucket = {
  t: number;
  workerId: string;
  lostTokens: number;
  promptTokens: number;
  unknownBlockSize: number;
};

/** Requests that arrived in one bucket with their prompt and cached tokens. */
export type TokenBucket = { t: number; requests: number; input: number; cached: number };
