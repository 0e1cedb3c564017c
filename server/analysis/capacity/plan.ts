import { AppError } from "../../errors";
import { checkOptions, exactCurves, type CapacityCurves, type CurveOptions } from "./mrc";
import { sampleCurves, type SampledCurves } from "./shards";
import { prepareWindow, type CapacityWindow, type PreparedWindow } from "./window-turns";

// Exact curves when they fit a memory budget, SHARDS otherwise: the one entry point a route needs. The exact pass
// keeps per distinct block its key, time and a key-table slot (about 60 bytes) plus 4 bytes per worker, and per stack
// a Fenwick tree and time owners for up to 3 × its largest cache; a sample keeps about twice that for its share.

const RATES = [0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001];

/** Curves with how they were made: `sampling` null when exact. */
export type PlannedCurves =
  | Extract<CapacityCurves, { empty: "no chains in the window" }>
  | (Extract<CapacityCurves, { empty: null }> & { sampling: null })
  | Extract<SampledCurves, { sampling: unknown }>;

/** About the bytes the exact pass needs for a prepared window. */
export function exactBytes(p: PreparedWindow, o: Required<CurveOptions>): number {
  const top = Math.max(o.maxBlocks, ...o.at);
  const stacks = p.workers * 36 * (top + p.longest) + 36 * (top * o.workers + p.longest);
  return p.fresh * (60 + 4 * p.workers) + stacks;
}

/** The sampling rate for a budget: the largest of 0.1, 0.05, 0.02, 0.01, … whose sample fits (0.001 at least). */
export function rateFor(exactBytes: number, budgetBytes: number): number {
  return RATES.find((r) => 2 * r * exactBytes <= budgetBytes) ?? RATES[RATES.length - 1]!;
}

/** Exact curves when they fit `memoryBytes`, else sampled ones at the rate that fits (see shards.ts). */
export function capacityCurves(w: CapacityWindow, opts: CurveOptions & { memoryBytes: number }): PlannedCurves {
  if (!(opts.memoryBytes > 0)) throw new AppError("BAD_REQUEST", "memoryBytes must be above 0");
  const o = checkOptions(opts);
  const p = prepareWindow(w);
  const need = exactBytes(p, o);
  if (need > opts.memoryBytes) return sampleCurves(p, o, rateFor(need, opts.memoryBytes));
  const c = exactCurves(p, o);
  return c.empty ? c : { ...c, sampling: null };
}
