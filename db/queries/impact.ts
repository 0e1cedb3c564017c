import type { CauseTotals, Span, WindowRows } from "../rows/impact";
import type { Db } from "../client";

// The impact panel's and the guard's window reads (SQLite only so far: request_causes is not on PostgreSQL yet).
// policy.ack rows are read on either engine by db/store/guards.ts acksFrom.

/** What the impact panel and the guard measure over [from, to): request token sums, TTFTs, causes, device evictions. */
export function windowRows(db: Db, span: Span): WindowRows {
  const { from, to } = span;
  const totals = db.$client
    .prepare(
      `SELECT count(*) AS requests, coalesce(sum(input_tokens), 0) AS inputTokens,
              coalesce(sum(cached_tokens), 0) AS cachedTokens
       FROM requests WHERE arrived_at >= ? AND arrived_at < ?`,
    )
    .get(from, to) as { requests: number; inputTokens: number; cachedTokens: number };
  const causes = db.$client
    .prepare(
      `SELECT coalesce(sum(cold), 0) AS cold, coalesce(sum(diverged), 0) AS diverged, coalesce(sum(evicted), 0) AS evicted,
              coalesce(sum(routed_away), 0) AS routedAway, coalesce(sum(unknown), 0) AS unknown
       FROM request_causes WHERE arrived_at >= ? AND arrived_at < ?`,
    )
    .get(from, to) as CauseTotals;
  const evictions = db.$client
    .prepare(
      `SELECT coalesce(reason, 'unknown') AS reason, sum(block_count) AS blocks FROM kv_events
       WHERE ts >= ? AND ts < ? AND op = 'removed' AND coalesce(storage_tier, 'device') = 'device'
       GROUP BY 1 ORDER BY 2 DESC LIMIT 20`,
    )
    .all(from, to) as { reason: string; blocks: number }[];
  const ttftsSorted = db.$client
    .prepare(
      "SELECT first_token_at - arrived_at FROM requests WHERE arrived_at >= ? AND arrived_at < ? AND first_token_at IS NOT NULL ORDER BY 1",
    )
    .pluck()
    .all(from, to) as number[];
  return { ...totals, ttftsSorted: from < to ? ttftsSorted : [], causes, evictions };
}
