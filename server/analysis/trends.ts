// Cluster KPI trends per time bucket for the overview sparklines. Pure: a bucket without data is null, never 0.
import { hitRate } from "./overview";

export type RequestBucket = { t: number; requests: number; ttftP50: number | null };
export type WorkerBucket = {
  t: number;
  samples: number;
  kvActive: number;
  kvTotal: number;
  query: number;
  hit: number;
};
export type TrendPoint = {
  t: number;
  requestsPerSecond: number | null;
  ttftP50Ms: number | null;
  itlP95Ms: number | null;
  prefixHitRate: number | null;
  kvUtilization: number | null;
};

/** The part of bucket [t, t + step) inside [from, to), in seconds (edge buckets are partial). */
export function bucketSeconds(t: number, step: number, from: number, to: number): number {
  return Math.max(0, Math.min(t + step, to) - Math.max(t, from)) / 1000;
}

/**
 * One point per bucket that has requests or worker samples, in time order. Requests per second count over the
 * part of the bucket inside the range; a bucket with worker samples but no requests is 0 req/s (the cluster
 * reported and was idle), one with neither is absent. Hit rate and KV utilization are token- and
 * block-weighted across all workers of the bucket.
 */
export function trendPoints(input: {
  requests: readonly RequestBucket[];
  workers: readonly (WorkerBucket & { workerId?: string })[];
  /** ITL p95 per bucket (ms), when requests reported it. */
  itl?: readonly { t: number; itlP95: number | null }[];
  step: number;
  from: number;
  to: number;
}): TrendPoint[] {
  const { step, from, to } = input;
  const byT = new Map<
    number,
    {
      req?: RequestBucket;
      itl?: number | null;
      samples: number;
      kvActive: number;
      kvTotal: number;
      query: number;
      hit: number;
    }
  >();
  const at = (t: number) => {
    let b = byT.get(t);
    if (!b) byT.set(t, (b = { samples: 0, kvActive: 0, kvTotal: 0, query: 0, hit: 0 }));
    return b;
  };
  for (const r of input.requests) at(r.t).req = r;
  for (const r of input.itl ?? []) at(r.t).itl = r.itlP95;
  for (const w of input.workers) {
    const b = at(w.t);
    b.samples += w.samples;
    b.kvActive += w.kvActive;
    b.kvTotal += w.kvTotal;
    b.query += w.query;
    b.hit += w.hit;
  }
  return [...byT.entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, b]) => {
      const secs = bucketSeconds(t, step, from, to);
      const n = b.req?.requests ?? 0;
      const rps = secs <= 0 ? null : n > 0 ? n / secs : b.samples > 0 ? 0 : null;
      return {
        t,
        requestsPerSecond: rps,
        ttftP50Ms: b.req?.ttftP50 ?? null,
        itlP95Ms: b.itl ?? null,
        prefixHitRate: hitRate(b.hit, b.query),
        kvUtilization: b.kvTotal > 0 ? b.kvActive / b.kvTotal : null,
      };
    });
}
