import "server-only";
import { rollupColumns, type SeriesChart } from "../../db/store/worker-columns";
import type { Store } from "../../db/store/store";
import { rawBuckets, rollupBuckets, rollupTotalBuckets, statsCoverage } from "../../db/store/workers";
import { needsCoverage, spanRollup, statsResolution, type StatsResolution } from "../analysis/resolution";
import { bucketDeltas, byWorkerId, columnsOfRows, type SeriesRow, type WorkerSeries } from "../analysis/workers";

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

/**
 * Bucket sums over the given workers (keys; every worker when undefined), from the finest source the stored rows
 * cover (the workers page's rule, statsResolution): up to an hour the 10- or 30-second rollups when they reach back far
 * enough, else raw samples; beyond, the minute rollups. From a rollup, summed across workers by the database (one row
 * per bucket); from raw samples, per worker (their counter deltas are per worker), left out unless kept. Reading raw
 * samples for an hour of 256 workers took ~0.5 s, their 10-second rollups per worker ~50 ms, summed ~16 ms.
 */
export async function coveredTotalRows(
  s: Store,
  opts: { from: number; to: number; step: number; workers?: readonly string[] },
): Promise<SeriesRow[]> {
  const { from, to, step, workers } = opts;
  const source = needsCoverage(from, to)
    ? statsResolution({ from, to, step, ...(await statsCoverage(s)) })
    : ("rollup" as const);
  if (source === "raw") {
    const rows = await seriesRows(s, { from, to, step, source });
    if (!workers) return rows;
    const keep = new Set(workers);
    return rows.filter((r) => keep.has(r.workerId));
  }
  const resolution = source === "rollup" ? spanRollup(to - from, step) : source;
  return rollupTotalBuckets(s, { from, to, step, resolution, ...(workers ? { workers } : {}) });
}

/** `workers`: a scope's worker keys, read alone (undefined: every worker). */
type SeriesRead = {
  from: number;
  to: number;
  step: number;
  workerId?: string;
  charts?: readonly SeriesChart[];
  workers?: readonly string[];
};

/**
 * The charts' columns per worker (ordered by id) over [from, to) in steps of `step` ms, from the same sources as
 * seriesRows: rollups aggregated into columns by the database, raw samples' bucket deltas turned into columns here.
 * With `charts`, only those columns (the other comes back empty).
 */
export async function seriesColumns(
  s: Store,
  opts: SeriesRead & { source: StatsResolution | "rollup" },
): Promise<WorkerSeries[]> {
  const { source, charts, workers, ...range } = opts;
  if (source === "raw") {
    const { rows, baselines } = await rawBuckets(s, range);
    const all = columnsOfRows(bucketDeltas(rows, baselines));
    const keep = workers && new Set(workers);
    const columns = keep ? all.filter((c) => keep.has(c.workerId)) : all;
    if (!charts) return columns;
    return columns.map((c) => ({
      ...c,
      util: charts.includes("util") ? c.util : [],
      hitRate: charts.includes("hitRate") ? c.hitRate : [],
    }));
  }
  const resolution = source === "rollup" ? spanRollup(range.to - range.from, range.step) : source;
  return byWorkerId(await rollupColumns(s, { ...range, resolution, charts, ...(workers ? { workers } : {}) }));
}

/**
 * The workers-page series over [from, to) in buckets of `step` ms: the source statsResolution picks and its columns.
 * Up to an hour the pick depends on what is stored: the rollup read it picks when coverage is complete runs
 * alongside the coverage query, and is read again only when coverage picks otherwise (a database whose 10 s rollup
 * does not reach back far enough). Beyond an hour, no coverage query at all.
 */
export async function workerSeries(
  s: Store,
  opts: SeriesRead,
): Promise<{ source: StatsResolution; workers: WorkerSeries[] }> {
  const { from, to, step } = opts;
  const read = (source: StatsResolution) => seriesColumns(s, { ...opts, source });
  if (!needsCoverage(from, to)) {
    const source = statsResolution({ from, to, step, oldest10s: null, oldestRaw: null });
    return { source, workers: await read(source) };
  }
  // Coverage from the epoch on: what a database with every rollup row would pick.
  const hoped = statsResolution({ from, to, step, oldest10s: 0, oldestRaw: null });
  const [coverage, early] = await Promise.all([statsCoverage(s), hoped === "raw" ? null : read(hoped)]);
  const source = statsResolution({ from, to, step, ...coverage });
  return { source, workers: source === hoped && early ? early : await read(source) };
}
