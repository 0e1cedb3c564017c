import type { BlockPool } from "./block-pool";
import type { SimRequest } from "./types";

// A window of identical decode passes: how many fit the KV still available, and the blocks they need,
// reserved in one go so that no pass of the window has to allocate.

/** Blocks the requests entries[0, n) still need to hold `passes` more tokens each. */
export function blocksFor(entries: readonly SimRequest[], n: number, passes: number, blockSize: number): number {
  let total = 0;
  for (let i = 0; i < n; i++) {
    const r = entries[i]!;
    total += Math.max(0, Math.ceil((r.computed + passes) / blockSize) - r.blocks.length - r.reservedOut);
  }
  return total;
}

/**
 * Reserve the blocks of up to `passes` decode passes of entries[0, n); returns how many passes fit (at least 1: the
 * first is already allocated).
 */
export function reserveWindow(
  pool: BlockPool,
  entries: readonly SimRequest[],
  n: number,
  passes: number,
  blockSize: number,
): number {
  const spare = pool.spare;
  if (blocksFor(entries, n, passes, blockSize) > spare) {
    let lo = 1;
    let hi = passes;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (blocksFor(entries, n, mid, blockSize) <= spare) lo = mid;
      else hi = mid - 1;
    }
    passes = lo;
  }
  const total = blocksFor(entries, n, passes, blockSize);
  if (total === 0) return passes;
  if (!pool.makeRoom(total)) return 1;
  for (let i = 0; i < n; i++) {
    const r = entries[i]!;
    const extra = Math.max(0, Math.ceil((r.computed + passes) / blockSize) - r.blocks.length - r.reservedOut);
    r.reservedOut += extra;
    pool.reserved += extra;
  }
  return passes;
}
