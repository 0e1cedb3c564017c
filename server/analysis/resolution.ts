// Which stored resolution of worker stats a chart reads: raw samples, or a 10- or 30-second, 1- or 15-minute rollup. Pure.
import { RAW_MAX_SPAN_MS } from "../../lib/series-source";

/** Raw rows or rollups for a span: the one rule (lib/series-source.ts), decided here for the reads that use it. */
export { seriesSource, useRollups } from "../../lib/series-source";
import type { StatsResolution } from "../../db/rows/workers";
export type { StatsResolution } from "../../db/rows/workers";

const TEN_SECONDS = 10_000;
const HALF_MINUTE = 30_000;
const MINUTE = 60_000;
const FIVE_MINUTES = 300_000;
const QUARTER_HOUR = 900_000;

/** The bucket sizes (ms) of the resolutions; raw samples have none. */
export const RESOLUTION_MS: Record<Exclude<StatsResolution, "raw">, number> = {
  "10s": TEN_SECONDS,
  "30s": HALF_MINUTE,
  "1m": MINUTE,
  "5m": FIVE_MINUTES,
  "15m": QUARTER_HOUR,
};

/**
 * The coarsest stored resolution that draws [from, to) in buckets of `step` ms exactly (each bucket a whole number of
 * rollup rows): up to an hour the 30- or 10-second rollup, beyond it the 15-, 5- or 1-minute one (the 6 h chart's 5 min
 * and the 24 h chart's 15 min buckets are then single rows). The 10- and 30-second rollups (written together) age out with the raw
 * samples and did not exist before their migration, so they serve a range only when they reach back as far as the raw
 * samples they replace: `oldest10s` and `oldestRaw` are the earliest 10-second bucket and raw sample stored (null:
 * none). A span over an hour whose step divides no rollup reads raw samples (never produced by bucketStep).
 */
export function statsResolution(input: {
  from: number;
  to: number;
  step: number;
  oldest10s: number | null;
  oldestRaw: number | null;
}): StatsResolution {
  const { from, to, step, oldest10s, oldestRaw } = input;
  const span = to - from;
  if (span <= RAW_MAX_SPAN_MS) {
    if (step % TEN_SECONDS !== 0 || oldest10s === null) return "raw";
    const needed = Math.max(from, oldestRaw ?? from);
    if (oldest10s > needed - (needed % TEN_SECONDS)) return "raw";
    return step % HALF_MINUTE === 0 ? "30s" : "10s";
  }
  if (step % QUARTER_HOUR === 0) return "15m";
  if (step % FIVE_MINUTES === 0) return "5m";
  return step % MINUTE === 0 ? "1m" : "raw";
}

/** Whether statsResolution reads `oldest10s` / `oldestRaw` for [from, to): only up to an hour (a caller skips asking). */
export function needsCoverage(from: number, to: number): boolean {
  return to - from <= RAW_MAX_SPAN_MS;
}

const COARSE_MIN_SPAN_MS = 6 * 3_600_000;

/**
 * The 1- or 15-minute rollup a span read in buckets of `step` ms uses when no finer choice was made: 15-minute rows for
 * spans over 6 h when the step is whole quarter-hours (a 24 h view reads ~1/15 of the rows), else 1-minute rows.
 */
export function spanRollup(spanMs: number, step: number = QUARTER_HOUR): "1m" | "15m" {
  return spanMs > COARSE_MIN_SPAN_MS && step % QUARTER_HOUR === 0 ? "15m" : "1m";
}
