// Where a view over a span reads from: raw rows up to an hour, per-minute rollups beyond. Pure. Analysis makes this
// choice (server/analysis/resolution.ts re-exports it); db/sqlite/routing.ts still makes it itself until it moves
// with issue 13's layering, so the rule lives here, importable by both.

/** Ranges up to an hour read raw 1-second samples; longer ranges read per-minute rollups. */
export const RAW_MAX_SPAN_MS = 3_600_000;

/** Where a chart over this span reads from: raw samples up to an hour, rollups beyond. */
export function seriesSource(spanMs: number): "raw" | "rollup" {
  return spanMs <= RAW_MAX_SPAN_MS ? "raw" : "rollup";
}

/** True when a query over [from, to) in buckets of `step` ms should read rollups rather than raw rows. */
export function useRollups(from: number, to: number, step: number): boolean {
  return seriesSource(to - from) === "rollup" && step % 60_000 === 0;
}
