import "server-only";
import type { Db } from "../../db/client";
import { rolledDecisionBuckets, rolledTokenBuckets } from "../../db/queries/rollups";
import { rawDecisionBuckets, rawTokenBuckets } from "../../db/queries/routing";
import type { DecisionBucket, TokenBucket } from "../../db/rows/routing";
import { useRollups } from "../analysis/resolution";

// The routing view's bucketed sums from raw rows or from the per-minute rollups, by analysis's raw-vs-rollup rule
// (the sums are the same either way; rollups keep long ranges fast).

/** Decisions, lost and prompt blocks per bucket of `step` ms and chosen worker over decisions in [from, to). */
export function decisionBuckets(db: Db, from: number, to: number, step: number): DecisionBucket[] {
  return useRollups(from, to, step)
    ? rolledDecisionBuckets(db, from, to, step)
    : rawDecisionBuckets(db, from, to, step);
}

/** Prompt and cached tokens of requests that arrived in [from, to), per bucket of `step` ms; empty buckets are absent. */
export function tokenBuckets(db: Db, from: number, to: number, step: number): TokenBucket[] {
  return useRollups(from, to, step) ? rolledTokenBuckets(db, from, to, step) : rawTokenBuckets(db, from, to, step);
}
