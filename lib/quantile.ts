// The one quantile: nearest rank over plain numbers. Pure. No values is null (no data), never 0.

/** The q-quantile (0..1) of ascending-sorted values by nearest rank; null for no values. The median is q = 0.5 (lower middle). */
export function quantileSorted(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** The q-quantile (0..1) of values in any order, by nearest rank; null for no values. Does not modify `values`. */
export function quantile(values: readonly number[], q: number): number | null {
  return quantileSorted(
    [...values].sort((a, b) => a - b),
    q,
  );
}
