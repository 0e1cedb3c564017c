import "server-only";
import {
  rawRequestBuckets,
  requestCount,
  rolledRequestBuckets,
  rolledRequestCount,
  rolledTtftHistogram,
  ttftsInRange,
} from "../../db/store/overview";
import type { Store } from "../../db/store/store";
import type { RequestScope } from "../../db/store/scope";
import { histogramQuantile } from "../analysis/histogram";
import { histogramP50P95, histogramsByBucket, sortedP50P95, sortedQuantilePerBucket } from "../analysis/latency";
import { useRollups } from "../analysis/resolution";

// Request counts and TTFT percentiles of a range: exact from raw rows up to an hour, from the per-minute histogram
// rollups (within ~5%) beyond. The choice is analysis's (useRollups); db/store returns the rows.

/** Requests that arrived in [from, to) (of a scope) and their TTFT p50/p95 (ms; null without timed requests). */
export async function requestStats(
  s: Store,
  from: number,
  to: number,
  rs?: RequestScope,
): Promise<{ requests: number; ttftP50Ms: number | null; ttftP95Ms: number | null }> {
  const rolled = useRollups(from, to, 60_000);
  const [{ p50, p95 }, requests] = await Promise.all([
    rolled
      ? rolledTtftHistogram(s, from, to, rs).then(histogramP50P95)
      : ttftsInRange(s, from, to, rs).then(sortedP50P95),
    rolled ? rolledRequestCount(s, from, to, rs) : requestCount(s, from, to, rs),
  ]);
  return { requests, ttftP50Ms: p50, ttftP95Ms: p95 };
}

/**
 * Per bucket of `step` ms over requests that arrived in [from, to): how many, and the median TTFT (ms) of those with a
 * first token (null when none had one; nearest rank from raw rows, from the histograms beyond an hour). Buckets
 * without requests are absent.
 */
export async function requestTrend(
  s: Store,
  from: number,
  to: number,
  step: number,
  rs?: RequestScope,
): Promise<{ t: number; requests: number; ttftP50: number | null }[]> {
  if (!useRollups(from, to, step)) {
    const { counts, ttfts } = await rawRequestBuckets(s, from, to, step, rs);
    const p50 = new Map(sortedQuantilePerBucket(ttfts, 0.5).map((b) => [b.t, b.value]));
    return counts.map((c) => ({ t: c.t, requests: c.requests, ttftP50: p50.get(c.t) ?? null }));
  }
  const { counts, ttft } = await rolledRequestBuckets(s, from, to, step, rs);
  const byT = histogramsByBucket(ttft);
  return counts.map((c) => ({ t: c.t, requests: c.requests, ttftP50: histogramQuantile(byT.get(c.t) ?? [], 0.5) }));
}
