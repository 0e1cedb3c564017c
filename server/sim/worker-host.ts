import type { SimRequest } from "./types";
import type { SimWorker } from "./worker";

// What a worker needs from the cluster around it, and what it reports.

export interface WorkerHost {
  readonly now: number;
  at(t: number, run: () => void): void;
  /** Blocks hashes[created[k]] (k < count) of a request were newly cached on a worker (`created` is reused after). */
  stored(worker: SimWorker, req: SimRequest, created: readonly number[], count: number): void;
  /** Report blocks the pool removed since the last call. */
  flushRemoved(worker: SimWorker): void;
  /** The prefill worker is done; a decode worker must take over (disaggregated serving). */
  handoff(req: SimRequest): void;
  /** The request ended (ok, error or cancelled). */
  finished(req: SimRequest, worker: SimWorker): void;
  /** A draining worker has nothing left to do. */
  drained(worker: SimWorker): void;
}

export type WorkerState = "starting" | "ready" | "draining" | "down";

/** One scheduled pass (or window of identical passes), for tests and traces: who computes how many tokens. */
export type PassRecord = {
  at: number;
  passes: number;
  passMs: number;
  entries: { id: string; tokens: number; prefill: boolean }[];
};
