// Log-bucketed latency histograms: the bucket scheme ingest writes (db) and analysis reads. Pure.

/** Each bucket spans a factor of 1.1, so a quantile read from buckets is within ~5% of the exact value. */
export const BUCKET_RATIO = 1.1;
const LOG_RATIO = Math.log(BUCKET_RATIO);
export const MAX_BUCKET = 255;

/** One bucket's count, as stored per minute; a histogram's entries may repeat buckets (summed when read). */
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
