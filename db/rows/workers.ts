// Rows the worker queries return (db/sqlite/workers.ts), read by server/analysis/workers.ts.

export type LifecycleKind = "worker.up" | "worker.down";

export type SeriesRow = {
  workerId: string;
  t: number;
  samples: number;
  kvActive: number;
  kvTotal: number;
  query: number;
  hit: number;
};

export type RawBucket = {
  workerId: string;
  t: number;
  samples: number;
  kvActive: number;
  kvTotal: number;
  lastTs: number;
  lastQuery: string;
  lastHit: string;
};

export type DecisionRow = { ts: number; requestId: string; chosenWorkerId: string; candidates: string };

export type StatsResolution = "raw" | "10s" | "30s" | "1m" | "5m" | "15m";
