import { fmix } from "../../sim/hashing";

// Block keys → dense ids, an open-addressing table over typed arrays (no per-entry objects, no Map size limit), and the
// rolling key that names a block by its whole chain prefix.

const EMPTY = -1;
const TWO32 = 4294967296;

/**
 * The key of the block after the block keyed `prev` (0 before block 0) whose recorded hash is (hi, lo): 53 bits mixed
 * from both, so equal keys mean equal prefixes (up to collisions, about n²/2^54 for n distinct blocks).
 */
export function nextKey(prev: number, hi: number, lo: number): number {
  const a = Math.floor(prev / TWO32);
  const b = prev >>> 0;
  const h1 = fmix((Math.imul(a, 0x85ebca6b) ^ hi) + Math.imul(lo ^ b, 0x9e3779b1));
  const h2 = fmix((Math.imul(b, 0xc2b2ae35) ^ lo) + Math.imul(hi ^ a, 0x27d4eb2f) + 0x165667b1);
  return (h1 & 0x1fffff) * TWO32 + h2;
}

/** Key → id (ids handed out 0, 1, 2, … in insertion order); a slot holds its key and id + 1 side by side (0: empty). */
export class KeyTable {
  size = 0;
  private slots: Float64Array;
  private mask: number;

  constructor(capacity = 1024) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.slots = new Float64Array(2 * n);
    this.mask = n - 1;
  }

  /** The id of `key`, or `fresh` (then stored under it) when absent. */
  getOrAdd(key: number, fresh: number): number {
    const slots = this.slots;
    let i = key & this.mask;
    for (;;) {
      const id = slots[2 * i + 1]!;
      if (id === 0) break;
      if (slots[2 * i] === key) return id - 1;
      i = (i + 1) & this.mask;
    }
    slots[2 * i] = key;
    slots[2 * i + 1] = fresh + 1;
    if (++this.size * 2 > this.mask) this.grow();
    return fresh;
  }

  private grow(): void {
    const old = this.slots;
    const n = old.length;
    const slots = new Float64Array(2 * n);
    const mask = n - 1;
    for (let j = 0; j < old.length; j += 2) {
      if (old[j + 1] === 0) continue;
      let i = old[j]! & mask;
      while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
      slots[2 * i] = old[j]!;
      slots[2 * i + 1] = old[j + 1]!;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
