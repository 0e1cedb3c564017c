import "server-only";
import type { Db } from "../../db/client";
import { rawBuckets, rollupBuckets } from "../../db/queries/workers";
import type { StatsResolution } from "../analysis/resolution";
import { bucketDeltas, type SeriesRow } from "../analysis/workers";

/**
 * Bucket sums per worker over [from, to) in steps of `step` ms (epoch-aligned): "raw" from raw samples (counter deltas
 * taken the way ingest takes them), else from the named rollup ("rollup": the 1- or 15-minute one the span picks).
 */
export function seriesRows(
  db: Db,
  opts: { from: number; to: number; step: number; source: StatsResolution | "rollup"; workerId?: string },
): SeriesRow[] {
  if (opts.source === "rollup") return rollupBuckets(db, opts);
  if (opts.source !== "raw") return rollupBuckets(db, { ...opts, resolution: opts.source });
  const { rows, baselines } = rawBuckets(db, opts);
  return bucketDeltas(rows, baselines);
}
