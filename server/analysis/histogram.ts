// Log-bucketed latency histograms: mergeable across minutes, so percentiles over days never read raw rows. Pure.

/** Each bucket spans a factor of 1.1, so a quantile read from buckets is within ~5% of the exact value. */
export const BUCKET_RATIO = 1.1;
const LOG_RATIO = Math.log(BUCKET_RATIO);
export const MAX_BUCKET = 255;

export type HistogramEntry = { bucket: number; n: number };

/** The bucket of a latency in ms: 0 holds [0, 1] ms; bucket b > 0 holds (1.1^(b-1), 1.1^b]. */
export function latencyBucket(ms: number): number {
  if (!(ms > 1)) return 0;
  return Math.min(MAX_BUCKET, Math.ceil(Math.log(ms) / LOG_RATIO - 1e-9));
}

/** A representative value (ms) of a bucket: the geometric middle of its bounds. */
export function bucketValue(bucket: number): number {
  if (bucket <= 0) return 1;
  return BUCKET_RATIO ** (bucket - 0.5);
}

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
