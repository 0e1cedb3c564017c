// The one quantile: nearest rank over plain numbers. Pure. No values is null (no data), never 0.

/** The q-quantile (0..1) of ascending-sorted values by nearest rank; null for no values. The median is q = 0.5 (lower middle). */
export function quantileSorted(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/**
 * The median of values in any order as benchmarks report theirs: the middle value, or the mean of the two middle ones
 * for an even count (not a nearest rank: quantile(values, 0.5) takes the lower middle); null for no values.
 */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The q-quantile (0..1) of values in any order, by nearest rank; null for no values. Does not modify `values`. */
export function quantile(values: readonly number[], q: number): number | null {
  return quantileSorted(
    [...values].sort((a, b) => a - b),
    q,
  );
}
