// Percentiles from log-bucketed latency histograms (the bucket scheme is lib/latency-buckets.ts). Pure.
import { bucketValue, type HistogramEntry } from "../../lib/latency-buckets";

/** The q-quantile (0..1, nearest rank) of a histogram in ms; null when it is empty. Entries may repeat buckets. */
export function histogramQuantile(entries: readonly HistogramEntry[], q: number): number | null {
  const merged = new Map<number, number>();
  let total = 0;
  for (const e of entries) {
    merged.set(e.bucket, (merged.get(e.bucket) ?? 0) + e.n);
    total += e.n;
  }
  if (total === 0) return null;
  const rank = Math.min(total, Math.max(1, Math.ceil(q * total)));
  let seen = 0;
  for (const b of [...merged.keys()].sort((x, y) => x - y)) {
    seen += merged.get(b)!;
    if (seen >= rank) return bucketValue(b);
  }
  return null;
}
