import "server-only";
import { rawDecisionBuckets, rawTokenBuckets, rolledDecisionBuckets, rolledTokenBuckets } from "../../db/store/routing";
import type { Store } from "../../db/store/store";
import type { RequestScope } from "../../db/store/scope";
import type { DecisionBucket, TokenBucket } from "../../db/rows/routing";
import { spanRollup, useRollups } from "../analysis/resolution";

// The routing view's bucketed sums from raw rows or from the per-minute rollups, by analysis's raw-vs-rollup rule
// (the sums are the same either way; rollups keep long ranges fast).

/** Decisions, lost and prompt blocks per bucket of `step` ms and chosen worker over decisions in [from, to). */
export function decisionBuckets(s: Store, from: number, to: number, step: number): Promise<DecisionBucket[]> {
  return useRollups(from, to, step)
    ? rolledDecisionBuckets(s, spanRollup(to - from, step), from, to, step)
    : rawDecisionBuckets(s, from, to, step);
}

/**
 * Prompt and cached tokens of requests that arrived in [from, to) (of a scope), per bucket of `step` ms; empty buckets
 * are absent.
 */
export function tokenBuckets(
  s: Store,
  from: number,
  to: number,
  step: number,
  rs?: RequestScope,
): Promise<TokenBucket[]> {
  return useRollups(from, to, step)
    ? rolledTokenBuckets(s, from, to, step, rs)
    : rawTokenBuckets(s, from, to, step, rs);
}
