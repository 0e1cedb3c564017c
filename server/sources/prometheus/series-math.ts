// Pure helpers for turning scraped counters and histograms into rates and quantiles.

export type Buckets = { le: number; count: number }[];

/** Increase of a counter between two scrapes; a drop means the target restarted, so the new value is the increase. */
export function counterIncrease(previous: number | undefined, current: number): number | null {
  if (!Number.isFinite(current) || current < 0) return null;
  if (previous === undefined || !Number.isFinite(previous)) return null;
  return current >= previous ? current - previous : current;
}

/** Per-second rate from an increase over elapsed milliseconds; null without an interval. */
export function ratePerSecond(increase: number | null, elapsedMs: number): number | null {
  if (increase === null || !(elapsedMs > 0)) return null;
  return increase / (elapsedMs / 1000);
}

/** Sum histograms with the same bucket bounds (series of one family with different labels) bucket by bucket. */
export function mergeBuckets(all: Buckets[]): Buckets {
  const byLe = new Map<number, number>();
  for (const buckets of all)
    for (const b of buckets) if (Number.isFinite(b.count)) byLe.set(b.le, (byLe.get(b.le) ?? 0) + b.count);
  return [...byLe.entries()].sort((a, b) => a[0] - b[0]).map(([le, count]) => ({ le, count }));
}

/**
 * Observations between two scrapes of a cumulative histogram, bucket by bucket. Any bucket that dropped (a restart)
 * or changed bounds makes the current histogram the whole interval's observations.
 */
export function bucketIncrease(previous: Buckets | undefined, current: Buckets): Buckets {
  if (!previous || previous.length !== current.length) return current;
  const out: Buckets = [];
  for (let i = 0; i < current.length; i++) {
    const p = previous[i]!;
    const c = current[i]!;
    if (p.le !== c.le || c.count < p.count) return current;
    out.push({ le: c.le, count: c.count - p.count });
  }
  return out;
}

/**
 * The q-quantile of cumulative buckets (sorted by le, the last +Inf), interpolated linearly within the bucket as
 * Prometheus's histogram_quantile does; null when there are no observations. Falls in +Inf: the highest finite bound.
 */
export function histogramQuantile(q: number, buckets: Buckets): number | null {
  if (buckets.length === 0 || !(q >= 0 && q <= 1)) return null;
  const total = buckets.at(-1)!.count;
  if (!(total > 0)) return null;
  const rank = q * total;
  let lowerLe = 0;
  let lowerCount = 0;
  for (const b of buckets) {
    if (b.count >= rank) {
      if (b.le === Infinity) return Number.isFinite(lowerLe) && buckets.length > 1 ? lowerLe : null;
      const inBucket = b.count - lowerCount;
      if (inBucket <= 0) return b.le;
      return lowerLe + (b.le - lowerLe) * ((rank - lowerCount) / inBucket);
    }
    lowerLe = b.le;
    lowerCount = b.count;
  }
  return Number.isFinite(lowerLe) ? lowerLe : null;
}
