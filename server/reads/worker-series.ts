import "server-only";
import { rawBuckets, rollupBuckets } from "../../db/store/workers";
import type { Store } from "../../db/store/store";
import { spanRollup, type StatsResolution } from "../analysis/resolution";
import { bucketDeltas, type SeriesRow } from "../analysis/workers";

/**
 * Bucket sums per worker over [from, to) in steps of `step` ms (epoch-aligned): "raw" from raw samples (counter deltas
 * taken the way ingest takes them), else from the named rollup ("rollup": the 1- or 15-minute one the span picks).
 */
export async function seriesRows(
  s: Store,
  opts: { from: number; to: number; step: number; source: StatsResolution | "rollup"; workerId?: string },
): Promise<SeriesRow[]> {
  const { source, ...range } = opts;
  if (source === "rollup")
    return rollupBuckets(s, { ...range, resolution: spanRollup(range.to - range.from, range.step) });
  if (source !== "raw") return rollupBuckets(s, { ...range, resolution: source });
  const { rows, baselines } = await rawBuckets(s, range);
  return bucketDeltas(rows, baselines);
}
