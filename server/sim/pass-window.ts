import type { BlockPool } from "./block-pool";
import type { SimRequest } from "./types";

// A window of identical decode passes: how many fit the KV still available, and the blocks they need,
// reserved in one go so that no pass of the window has to allocate.

/** Blocks the requests still need to hold `passes` more tokens each. */
export function blocksFor(entries: readonly SimRequest[], passes: number, blockSize: number): number {
  let total = 0;
  for (const r of entries)
    total += Math.max(0, Math.ceil((r.computed + passes) / blockSize) - r.blocks.length - r.reservedOut);
  return total;
}

/** Reserve the blocks of up to `passes` decode passes; returns how many passes fit (at least 1: the first is already allocated). */
export function reserveWindow(
  pool: BlockPool,
  entries: readonly SimRequest[],
  passes: number,
  blockSize: number,
): number {
  const spare = pool.spare;
  if (blocksFor(entries, passes, blockSize) > spare) {
    let lo = 1;
    let hi = passes;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (blocksFor(entries, mid, blockSize) <= spare) lo = mid;
      else hi = mid - 1;
    }
    passes = lo;
  }
  const total = blocksFor(entries, passes, blockSize);
  if (total === 0) return passes;
  if (!pool.makeRoom(total)) return 1;
  for (const r of entries) {
    const extra = Math.max(0, Math.ceil((r.computed + passes) / blockSize) - r.blocks.length - r.reservedOut);
    r.reservedOut += extra;
    pool.reserved += extra;
  }
  return passes;
}
