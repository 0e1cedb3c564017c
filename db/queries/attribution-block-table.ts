// The attribution index's in-memory block entries: an open-addressing hash table keyed by a block's 64-bit hash as two
// int32 halves (no BigInt per block), with each block's list id in memory (`cur`) and on disk (`disk`), a dirty flag and
// the order of first use (the oldest clean entries are dropped first when the table is trimmed).

/** The signed 64-bit key of halves (hi signed, lo as its 32 bits). */
export const keyOf = (hi: number, lo: number): bigint => (BigInt(hi) << 32n) | BigInt(lo >>> 0);

/**
 * SQL for the signed 64-bit key of two bound halves (hi, then lo; numbers, which SQLite's bitwise operators take as
 * integers): the same value as keyOf without a BigInt per key.
 */
export const KEY_SQL = "((? << 32) | (? & 4294967295))";

/** Rows per statement of the index's and the marks' multi-row writes (fewer calls into SQLite per row). */
export const PUT_ROWS = 32;

/** The int32 halves of a signed 64-bit key. */
export function halvesOf(key: bigint): [hi: number, lo: number] {
  return [Number(BigInt.asIntN(32, key >> 32n)), Number(BigInt.asIntN(32, key))];
}

const EMPTY = 0;
const USED = 1;
/** Up to this many dirty keys are sorted packed with their index in one double. */
const SORT_INDEX = 2 ** 21;

export class BlockTable {
  size = 0;
  private cap = 0;
  private mask = 0;
  /**
   * Per slot, 4 int32s: the key's high and low halves and whether the slot is used (one 16-byte group, so a probe
   * touches one cache line: the table outgrows the CPU caches, and lookups are most of the index's time).
   */
  private keys!: Int32Array;
  private stamp!: Float64Array;
  private seq = 0;
  cur!: Float64Array;
  disk!: Float64Array;
  dirtyFlag!: Uint8Array;
  /** Dirty keys in the order they became dirty (may hold keys flushed since; check dirtyFlag). */
  dirtyHi: number[] = [];
  dirtyLo: number[] = [];
  dirtyCount = 0;

  constructor(capacity = 1 << 16) {
    this.alloc(capacity);
  }

  private alloc(cap: number) {
    this.cap = cap;
    this.mask = cap - 1;
    this.keys = new Int32Array(cap * 4);
    this.stamp = new Float64Array(cap);
    this.cur = new Float64Array(cap);
    this.disk = new Float64Array(cap);
    this.dirtyFlag = new Uint8Array(cap);
  }

  private slotFor(hi: number, lo: number): number {
    return (Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) >>> 0) & this.mask;
  }

  /** Room for `extra` more keys without growing: slots stay where they are while that many are added. */
  reserve(extra: number): void {
    let cap = this.cap;
    while ((this.size + extra + 1) * 2 > cap) cap *= 2;
    if (cap > this.cap) this.rehash(cap, -Infinity);
  }

  /** The slot of a key, or −1 when the table does not hold it. */
  find(hi: number, lo: number): number {
    const k = this.keys;
    let i = this.slotFor(hi, lo);
    for (;;) {
      const at = i << 2;
      if (k[at + 2] === EMPTY) return -1;
      if (k[at] === hi && k[at + 1] === lo) return i;
      i = (i + 1) & this.mask;
    }
  }

  /** Add a key not held yet with its list id (clean: the same in memory and on disk); returns its slot. */
  add(hi: number, lo: number, list: number): number {
    if ((this.size + 1) * 2 > this.cap) this.rehash(this.cap * 2, -Infinity);
    const k = this.keys;
    let i = this.slotFor(hi, lo);
    while (k[(i << 2) + 2] !== EMPTY) i = (i + 1) & this.mask;
    k[i << 2] = hi;
    k[(i << 2) + 1] = lo;
    k[(i << 2) + 2] = USED;
    this.cur[i] = list;
    this.disk[i] = list;
    this.dirtyFlag[i] = 0;
    this.stamp[i] = this.seq++;
    this.size++;
    return i;
  }

  /** Point a slot's block at list `to` in memory (marking it dirty). */
  set(i: number, to: number): void {
    this.cur[i] = to;
    if (this.dirtyFlag[i] === 0) {
      this.dirtyFlag[i] = 1;
      this.dirtyCount++;
      this.dirtyHi.push(this.keys[i << 2]!);
      this.dirtyLo.push(this.keys[(i << 2) + 1]!);
    }
  }

  /** The slot's block was written: clean again. */
  clean(i: number): void {
    this.disk[i] = this.cur[i]!;
    if (this.dirtyFlag[i] === 1) {
      this.dirtyFlag[i] = 0;
      this.dirtyCount--;
    }
  }

  /**
   * The dirty keys ordered by their high half (ties in any order: the order only keeps each write transaction on a
   * narrow range of pages), as [hi, lo] pairs; the dirty list is consumed.
   */
  takeDirtySorted(): { hi: Int32Array; lo: Int32Array } {
    const n = this.dirtyHi.length;
    const H = this.dirtyHi;
    const L = this.dirtyLo;
    const hi = new Int32Array(n);
    const lo = new Int32Array(n);
    if (n < SORT_INDEX) {
      // (hi + 2^31) · 2^21 + k is exact in a double: one native numeric sort, no comparator.
      const packed = new Float64Array(n);
      for (let k = 0; k < n; k++) packed[k] = (H[k]! + 2 ** 31) * SORT_INDEX + k;
      packed.sort();
      for (let j = 0; j < n; j++) {
        const k = packed[j]! % SORT_INDEX;
        hi[j] = H[k]!;
        lo[j] = L[k]!;
      }
    } else {
      const idx = Array.from({ length: n }, (_, k) => k).sort((a, b) => H[a]! - H[b]!);
      for (let j = 0; j < n; j++) {
        hi[j] = H[idx[j]!]!;
        lo[j] = L[idx[j]!]!;
      }
    }
    this.dirtyHi = [];
    this.dirtyLo = [];
    return { hi, lo };
  }

  /** Keep at most `max` entries, the most recently added; only call when nothing is dirty. */
  trim(max: number): void {
    if (this.size <= max) return;
    this.rehash(this.cap, this.seq - Math.floor(max / 2));
  }

  /** Drop every entry (nothing may be dirty). */
  clear(): void {
    this.alloc(1 << 16);
    this.size = 0;
    this.dirtyHi = [];
    this.dirtyLo = [];
    this.dirtyCount = 0;
  }

  /** Drop every entry but keep the room (nothing may be dirty): a table filled again to about its size does not regrow. */
  empty(): void {
    this.keys.fill(0);
    this.size = 0;
    this.dirtyHi = [];
    this.dirtyLo = [];
    this.dirtyCount = 0;
  }

  private rehash(cap: number, keepFrom: number) {
    const { keys, stamp, cur, disk, dirtyFlag } = this;
    const old = this.cap;
    this.alloc(cap);
    this.size = 0;
    const k = this.keys;
    for (let i = 0; i < old; i++) {
      if (keys[(i << 2) + 2] !== USED || (stamp[i]! < keepFrom && dirtyFlag[i] === 0)) continue;
      const hi = keys[i << 2]!;
      const lo = keys[(i << 2) + 1]!;
      let j = this.slotFor(hi, lo);
      while (k[(j << 2) + 2] !== EMPTY) j = (j + 1) & this.mask;
      k[j << 2] = hi;
      k[(j << 2) + 1] = lo;
      k[(j << 2) + 2] = USED;
      this.cur[j] = cur[i]!;
      this.disk[j] = disk[i]!;
      this.dirtyFlag[j] = dirtyFlag[i]!;
      this.stamp[j] = stamp[i]!;
      this.size++;
    }
  }
}

/**
 * A Bloom filter over 64-bit keys as int32 halves: `mightHold` is false only for keys never added. The index keeps one
 * over the blocks that may have a list on disk, so a block stored for the first time is not looked up in attr_blocks.
 */
const MAX_BITS = 1 << 28;

export class KeyFilter {
  private bits: Int32Array;
  private mask: number;
  added = 0;

  /** Room for about `expected` keys at ~1% false positives (a power of two from 2^23 to 2^28 bits: 1 to 32 MiB). */
  constructor(expected: number) {
    let n = 1 << 23;
    while (n < expected * 10 && n < MAX_BITS) n *= 2;
    this.bits = new Int32Array(n >>> 5);
    this.mask = n - 1;
  }

  /** True when the filter holds more keys than it was sized for and can be rebuilt larger. */
  full(): boolean {
    return this.added * 10 > this.mask && this.mask + 1 < MAX_BITS;
  }

  add(hi: number, lo: number): void {
    let h = Math.imul(lo ^ 0x5bd1e995, 0xcc9e2d51) ^ hi;
    const step = Math.imul(hi ^ (lo >>> 16), 0x1b873593) | 1;
    for (let k = 0; k < 4; k++, h = (h + step) | 0) {
      const b = h & this.mask;
      this.bits[b >>> 5]! |= 1 << (b & 31);
    }
    this.added++;
  }

  mightHold(hi: number, lo: number): boolean {
    let h = Math.imul(lo ^ 0x5bd1e995, 0xcc9e2d51) ^ hi;
    const step = Math.imul(hi ^ (lo >>> 16), 0x1b873593) | 1;
    for (let k = 0; k < 4; k++, h = (h + step) | 0) {
      const b = h & this.mask;
      if ((this.bits[b >>> 5]! & (1 << (b & 31))) === 0) return false;
    }
    return true;
  }
}
