// Cumulative counters (decimal strings) into deltas, and minute alignment: shared by ingest (db) and analysis. Pure.

export type CounterSample = { ts: number; query: string; hit: string };
export type CounterDelta = { query: number; hit: number; reset: boolean };

/**
 * The tokens counted between two samples of one worker. A counter that went down means the worker
 * restarted: the new value is what it counted since. No previous sample, or a sample not newer than
 * the previous one, yields null (no delta can be known).
 */
export function counterDelta(prev: CounterSample | undefined, next: CounterSample): CounterDelta | null {
  if (!prev || next.ts <= prev.ts) return null;
  const pq = BigInt(prev.query);
  const ph = BigInt(prev.hit);
  const nq = BigInt(next.query);
  const nh = BigInt(next.hit);
  const reset = nq < pq || nh < ph;
  const query = reset ? nq : nq - pq;
  const hit = reset ? nh : nh - ph;
  return { query: Number(query), hit: Number(hit < query ? hit : query), reset };
}

/** Start of the UTC minute holding ts (Unix ms). */
export function minuteOf(ts: number): number {
  return ts - (ts % 60_000);
}
