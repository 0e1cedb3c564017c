// Rows the impact queries return (db/store/impact.ts), read by server/analysis/impact.ts.

export type Span = { from: number; to: number };

/** Recomputed prompt tokens of a window's attributed requests, by cause (lib/attribution's causes). */
export type CauseTotals = { cold: number; diverged: number; evicted: number; routedAway: number; unknown: number };

/** What the store holds for one window: token sums, TTFTs (ms, ascending), causes and device evictions by reason. */
export type WindowRows = {
  requests: number;
  inputTokens: number;
  cachedTokens: number;
  ttftsSorted: readonly number[];
  causes: CauseTotals;
  evictions: readonly { reason: string; blocks: number }[];
};

export type AckRow = { target: string; version: number; status: string; ts: number; message: string | null };
