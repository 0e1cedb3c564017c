// Rows of the overview's fleet table as db/store/fleet.ts reads them (either engine).

/** Requests of one cluster id and model in a window, with their input and cached tokens. */
export type FleetRequestGroup = {
  clusterId: number;
  model: string;
  requests: number;
  inputTokens: number;
  cachedTokens: number;
};

/** One timed request's TTFT (ms). */
export type FleetTtft = { clusterId: number; model: string; ttft: number };

/** One worker.stats sample, with the model its worker reported (null when it did not). */
export type FleetSample = {
  clusterId: number;
  workerId: string;
  ts: number;
  kvActiveBlocks: number;
  kvTotalBlocks: number;
  model: string | null;
};
