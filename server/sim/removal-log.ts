import { RemovedHashes } from "./removed-hashes";

// The hashes one block pool removed since its last report, by reason, as the prefix index keeps
// them: two signed 32-bit halves in a typed array per reason. An eviction writes two int32 (no
// heap number, no array growth); the RemovedHashes list an event carries is a copy of a reason's
// halves made at the drain.

export const REASONS = ["capacity", "ttl", "agent_end", "session_end", "offloaded"] as const;
export type RemovalReason = (typeof REASONS)[number];
/** Index of each reason in REASONS. */
export const CAPACITY = 0;
export const TTL = 1;
export const AGENT_END = 2;
export const SESSION_END = 3;
export const OFFLOADED = 4;

const NOTHING: [RemovalReason, RemovedHashes][] = [];
const NO_COUNTS: [RemovalReason, number][] = [];

export class RemovalLog {
  /** Hashes logged since the last drain. */
  count = 0;
  /** False: only how many hashes each reason logged is kept (drainCounts), not the hashes (nobody takes kv.removed). */
  keepHashes = true;
  /** Per reason: hash i's halves at 2 i, 2 i + 1 (signed, as the index keeps them). */
  private halves: Int32Array[] = REASONS.map(() => new Int32Array(512));
  private lengths = new Int32Array(REASONS.length);
  /** Per reason: hash strings that are not the decimal of their halves (names in tests), by position, else null. */
  private names: ((string | undefined)[] | null)[] = REASONS.map(() => null);

  /** Log a removed hash under reason index `r`: its halves, and its string when that is not their decimal (else null). */
  add(r: number, hi: number, lo: number, name: string | null): void {
    const n = this.lengths[r]!;
    this.lengths[r] = n + 1;
    this.count++;
    if (!this.keepHashes) return;
    let h = this.halves[r]!;
    if (2 * n + 2 > h.length) {
      const grown = new Int32Array(h.length * 2);
      grown.set(h);
      this.halves[r] = h = grown;
    }
    h[2 * n] = hi;
    h[2 * n + 1] = lo;
    if (name !== null) (this.names[r] ??= [])[n] = name;
  }

  /** Take how many hashes each reason logged, in REASONS order (for a log that keeps no hashes). */
  drainCounts(): [RemovalReason, number][] {
    if (this.count === 0) return NO_COUNTS;
    this.count = 0;
    const out: [RemovalReason, number][] = [];
    for (let r = 0; r < REASONS.length; r++) {
      if (this.lengths[r] === 0) continue;
      out.push([REASONS[r]!, this.lengths[r]!]);
      this.lengths[r] = 0;
    }
    return out;
  }

  /** Take what was logged, by reason in REASONS order, each reason's hashes in the order they were removed. */
  drain(): [RemovalReason, RemovedHashes][] {
    if (this.count === 0) return NOTHING;
    this.count = 0;
    const out: [RemovalReason, RemovedHashes][] = [];
    for (let r = 0; r < REASONS.length; r++) {
      const n = this.lengths[r]!;
      if (n === 0) continue;
      out.push([REASONS[r]!, hashesOf(this.halves[r]!, n, this.names[r]!)]);
      this.lengths[r] = 0;
      this.names[r] = null;
    }
    return out;
  }
}

/** Words of one slab the drained lists are carved from (see hashesOf). */
const SLAB_WORDS = 1 << 16;
let slab = new Uint32Array(SLAB_WORDS);
let slabUsed = 0;

/**
 * The first n hashes of `halves` as a list of their own: one copy of the halves, read as unsigned. Most drains hold a
 * few hashes, and a typed array with a buffer of its own costs more to allocate than the copy, so a short list is a
 * view of a shared slab. A slab is only ever appended to, never reused: once full, the next list starts a new one,
 * and the old one lives as long as a list still views it. A list that grows later (push) moves to a buffer of its
 * own, since its view is exactly its length.
 */
function hashesOf(halves: Int32Array, n: number, names: (string | undefined)[] | null): RemovedHashes {
  const words = 2 * n;
  let copy: Uint32Array;
  if (words > SLAB_WORDS >> 4) copy = new Uint32Array(words);
  else {
    if (slabUsed + words > SLAB_WORDS) {
      slab = new Uint32Array(SLAB_WORDS);
      slabUsed = 0;
    }
    copy = slab.subarray(slabUsed, slabUsed + words);
    slabUsed += words;
  }
  for (let i = 0; i < words; i++) copy[i] = halves[i]!;
  return new RemovedHashes(copy, n, names);
}
