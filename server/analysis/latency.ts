// Latency percentiles of a range and per bucket, from exact values or from histogram rollups. Pure.
import type { HistogramEntry } from "../../lib/latency-buckets";
import { histogramQuantile } from "./histogram";
import { quantileSorted } from "../../lib/quantile";

/** A bucket's start (Unix ms) and its value (ms; null when the bucket had none to summarize). */
export type BucketValue = { t: number; value: number | null };

/** The p50 and p95 (ms; null without values) of ascending values, by nearest rank. */
export function sortedP50P95(sorted: readonly number[]): { p50: number | null; p95: number | null } {
  return { p50: quantileSorted(sorted, 0.5), p95: quantileSorted(sorted, 0.95) };
}

/** The p50 and p95 (ms; null when empty) of a histogram; entries may repeat buckets. */
export function histogramP50P95(entries: readonly HistogramEntry[]): { p50: number | null; p95: number | null } {
  return { p50: histogramQuantile(entries, 0.5), p95: histogramQuantile(entries, 0.95) };
}

/** Histogram entries grouped by bucket start, in no order, into one histogram per start. */
export function histogramsByBucket(
  entries: readonly ({ t: number } & HistogramEntry)[],
): Map<number, HistogramEntry[]> {
  const byT = new Map<number, HistogramEntry[]>();
  for (const e of entries) {
    const h = byT.get(e.t);
    if (h) h.push(e);
    else byT.set(e.t, [e]);
  }
  return byT;
}

/** The q-quantile of each bucket's histogram, by ascending bucket start; a start without entries is absent. */
export function histogramQuantilePerBucket(
  entries: readonly ({ t: number } & HistogramEntry)[],
  q: number,
): BucketValue[] {
  return [...histogramsByBucket(entries).entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, h]) => ({ t, value: histogramQuantile(h, q) }));
}

/**
 * The q-quantile of each bucket's values, given rows ordered by bucket start then value (as a raw read returns them);
 * a start without rows is absent.
 */
export function sortedQuantilePerBucket(rows: readonly { t: number; v: number }[], q: number): BucketValue[] {
  const out: BucketValue[] = [];
  for (let i = 0; i < rows.length;) {
    let j = i;
    while (j < rows.length && rows[j]!.t === rows[i]!.t) j++;
    out.push({
      t: rows[i]!.t,
      value: quantileSorted(
        rows.slice(i, j).map((r) => r.v),
        q,
      ),
    });
    i = j;
  }
  return out;
}
