import "server-only";
import {
  itlValues,
  rawItlP95Rows,
  rawPreemptions,
  rolledItlHistogram,
  rolledItlP95Buckets,
  rolledPreemptions,
  workerDecodeRows,
  workerPreemptions,
} from "../../db/store/decode";
import type { Store } from "../../db/store/store";
import type { ScopeFilter } from "../../db/store/scope";
import { histogramQuantile } from "../analysis/histogram";
import { histogramQuantilePerBucket, sortedQuantilePerBucket } from "../analysis/latency";
import { quantileSorted } from "../../lib/quantile";
import { useRollups } from "../analysis/resolution";

// Decode-side telemetry: inter-token latency and preemptions, cluster-wide or for one worker. ITL p50 is the
// median of the requests' mean ITL, ITL p95 the 95th percentile of their p95 ITL; exact from raw rows up to an
// hour, from the per-minute histograms (within ~5%) beyond.

export type DecodeStats = {
  itlP50Ms: number | null;
  itlP95Ms: number | null;
  preemptions: number;
  preemptedRequests: number;
};

export type WorkerDecode = {
  preemptions: number | null;
  batchTokens: number | null;
  itlP50Ms: number | null;
  itlP95Ms: number | null;
};

/**
 * ITL p50/p95 (ms; null without decoding requests) and preemptions of requests that arrived in [from, to), optionally
 * on one worker, or of a scope (its requests; beyond an hour its workers' ITL rollups).
 */
export async function decodeStats(
  s: Store,
  from: number,
  to: number,
  workerId?: string,
  scope: ScopeFilter = {},
): Promise<DecodeStats> {
  if (useRollups(from, to, 60_000)) {
    const [p50, p95, preemptions] = await Promise.all([
      rolledItlHistogram(s, from, to, 0, workerId, scope.workers),
      rolledItlHistogram(s, from, to, 1, workerId, scope.workers),
      workerId === undefined ? rolledPreemptions(s, from, to, scope.rs) : workerPreemptions(s, from, to, workerId),
    ]);
    return {
      itlP50Ms: histogramQuantile(p50, 0.5),
      itlP95Ms: histogramQuantile(p95, 0.95),
      preemptions,
      preemptedRequests: 0,
    };
  }
  const [p, means, p95s] = await Promise.all([
    rawPreemptions(s, from, to, workerId, scope.rs),
    itlValues(s, from, to, "itlMsMean", workerId, scope.rs),
    itlValues(s, from, to, "itlMsP95", workerId, scope.rs),
  ]);
  return {
    itlP50Ms: quantileSorted(means, 0.5),
    itlP95Ms: quantileSorted(p95s, 0.95),
    preemptions: p.preemptions,
    preemptedRequests: p.preempted,
  };
}

/**
 * Latest cumulative preemptions, mean batch tokens per pass and ITL p50/p95 per worker over [from, to) (workers page
 * columns), or of one worker.
 */
export async function decodeByWorker(
  s: Store,
  from: number,
  to: number,
  workerId?: string,
): Promise<Map<string, WorkerDecode>> {
  const { workers, itl } = await workerDecodeRows(s, from, to, workerId);
  const hist = new Map<string, { bucket: number; n: number }[]>();
  for (const r of itl) {
    const k = `${r.w}\u0000${r.stat}`;
    const h = hist.get(k) ?? [];
    h.push({ bucket: r.bucket, n: r.n });
    hist.set(k, h);
  }
  const out = new Map<string, WorkerDecode>();
  const byId = new Map(workers.map((r) => [r.w, r]));
  for (const w of new Set([...workers.map((r) => r.w), ...itl.map((r) => r.w)])) {
    const r = byId.get(w);
    out.set(w, {
      preemptions: r?.preemptions ?? null,
      batchTokens: r?.batch ?? null,
      itlP50Ms: histogramQuantile(hist.get(`${w}\u00000`) ?? [], 0.5),
      itlP95Ms: histogramQuantile(hist.get(`${w}\u00001`) ?? [], 0.95),
    });
  }
  return out;
}

/** Per bucket of `step` ms over requests that arrived in [from, to): the 95th percentile of their p95 ITL (ms). Buckets without ITL are absent. */
export async function itlTrend(
  s: Store,
  from: number,
  to: number,
  step: number,
  scope: ScopeFilter = {},
): Promise<{ t: number; itlP95: number | null }[]> {
  const buckets = useRollups(from, to, step)
    ? histogramQuantilePerBucket(await rolledItlP95Buckets(s, from, to, step, scope.workers), 0.95)
    : sortedQuantilePerBucket(await rawItlP95Rows(s, from, to, step, scope.rs), 0.95);
  return buckets.map((b) => ({ t: b.t, itlP95: b.value }));
}
