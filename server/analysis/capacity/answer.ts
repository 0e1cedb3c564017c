import { AppError } from "../../errors";
import type { CurvePoint } from "./curve";

// Reading a curve: the smallest cache reaching a target hit rate, and the curve's knee. Sizes are in the curve's own
// blocks (per worker on a per-worker curve, in all on a shared one); tokens = blocks × block size, GB = tokens × KV
// bytes per token ÷ 1e9.

/** A cache size in blocks, tokens and GB, with the hit rate the curve gives it (0–1). */
export type CapacitySize = { blocks: number; tokens: number; gigabytes: number; hitRate: number };

export type CapacityAnswer = {
  target: number;
  /** The smallest point reaching the target (null: no point on the curve does). */
  size: CapacitySize | null;
  /** The curve's point just before it (the true smallest size lies after this and at most at `size`); null at 0. */
  below: CapacitySize | null;
  /** The largest hit rate on the curve. */
  best: number;
};

/** One size in all units. */
export function sizeOf(p: CurvePoint, blockSize: number, bytesPerToken: number): CapacitySize {
  const tokens = p.blocks * blockSize;
  return { blocks: p.blocks, tokens, gigabytes: (tokens * bytesPerToken) / 1e9, hitRate: p.hitRate };
}

/** The smallest size on the curve whose hit rate reaches `target` (0 < target ≤ 1). Points ascend by size. */
export function capacityFor(
  points: readonly CurvePoint[],
  target: number,
  blockSize: number,
  bytesPerToken: number,
): CapacityAnswer {
  if (!(target > 0 && target <= 1)) throw new AppError("BAD_REQUEST", "target hit rate must be in (0, 1]");
  const best = points.reduce((m, p) => Math.max(m, p.hitRate), 0);
  const i = points.findIndex((p) => p.hitRate >= target);
  return {
    target,
    size: i < 0 ? null : sizeOf(points[i]!, blockSize, bytesPerToken),
    below: i > 0 ? sizeOf(points[i - 1]!, blockSize, bytesPerToken) : null,
    best,
  };
}

/**
 * The knee: the point farthest above the chord from the first point to the last, both axes scaled to 0–1 (so the
 * answer does not depend on units). On a concave curve that is where the gain per block falls to the chord's slope,
 * the average gain per block over the whole range: past it every block buys less than the average, so it needs no
 * tuning fraction, and on a curve with a cliff (a working set that fits) it lands on the top of the cliff. Null when
 * the curve is flat or no point lies above the chord (gains keep growing: the range is too short to show a knee).
 */
export function kneeOf(points: readonly CurvePoint[], blockSize: number, bytesPerToken: number): CapacitySize | null {
  if (points.length < 3) return null;
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const dx = last.blocks - first.blocks;
  const dy = last.hitRate - first.hitRate;
  if (dx <= 0 || dy <= 0) return null;
  let best = -1;
  let gap = 1e-12;
  points.forEach((p, i) => {
    const g = (p.hitRate - first.hitRate) / dy - (p.blocks - first.blocks) / dx;
    if (g > gap) {
      gap = g;
      best = i;
    }
  });
  return best < 0 ? null : sizeOf(points[best]!, blockSize, bytesPerToken);
}
