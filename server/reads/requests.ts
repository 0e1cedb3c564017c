import "server-only";
import type { Db } from "../../db/client";
import { rawRequestTrend, requestCount, ttftsInRange } from "../../db/queries/overview";
import { rolledRequestBuckets, rolledRequestCount, rolledTtftHistogram } from "../../db/queries/rollups";
import { histogramQuantile } from "../analysis/histogram";
import { histogramP50P95, histogramsByBucket, sortedP50P95 } from "../analysis/latency";
import { useRollups } from "../analysis/resolution";

// Request counts and TTFT percentiles of a range: exact from raw rows up to an hour, from the per-minute histogram
// rollups (within ~5%) beyond. The choice is analysis's (useRollups); db/queries return the rows.

/** Requests that arrived in [from, to) and their TTFT p50/p95 (ms; null without timed requests). */
export function requestStats(
  db: Db,
  from: number,
  to: number,
): { requests: number; ttftP50Ms: number | null; ttftP95Ms: number | null } {
  const rolled = useRollups(from, to, 60_000);
  const { p50, p95 } = rolled
    ? histogramP50P95(rolledTtftHistogram(db, from, to))
    : sortedP50P95(ttftsInRange(db, from, to));
  return {
    requests: rolled ? rolledRequestCount(db, from, to) : requestCount(db, from, to),
    ttftP50Ms: p50,
    ttftP95Ms: p95,
  };
}

/**
 * Per bucket of `step` ms over requests that arrived in [from, to): how many, and the median TTFT (ms) of those with a
 * first token (null when none had one; nearest rank from raw rows, from the histograms beyond an hour). Buckets
 * without requests are absent.
 */
export function requestTrend(
  db: Db,
  from: number,
  to: number,
  step: number,
): { t: number; requests: number; ttftP50: number | null }[] {
  if (!useRollups(from, to, step)) return rawRequestTrend(db, from, to, step);
  const { counts, ttft } = rolledRequestBuckets(db, from, to, step);
  const byT = histogramsByBucket(ttft);
  return counts.map((c) => ({ t: c.t, requests: c.requests, ttftP50: histogramQuantile(byT.get(c.t) ?? [], 0.5) }));
}
