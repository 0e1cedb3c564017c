import { ATTR_FILTER_BITS } from "../../lib/memory-bounds";

// The attribution index's in-memory block entries: an open-addressing hash table keyed by a block's 64-bit hash as two
// int32 halves (no BigInt per block), with each block's list id in memory (`cur`) and on disk (`disk`), a dirty flag and
// the order of last use (the least recently used clean entries are dropped first when the table is trimmed).

/** The signed 64-bit key of halves (hi signed, lo as its 32 bits). */
export const keyOf = (hi: number, lo: number): bigint => (BigInt(hi) << 32n) | BigInt(lo >>> 0);

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
  /** The slots it starts with, allocated and touched up front; it gives back what it grew past them when emptied. */
  private readonly base: number;
  private mask = 0;
  /**
   * Per slot, 32 bytes: as int32s the key's high and low halves, whether the slot is used and its dirty flag, then as
   * doubles its list id in memory (`cur`) and on disk (`disk`). A lookup and what it reads or writes next share one
   * cache line: the table outgrows the CPU caches, and these accesses are most of the index's time.
   */
  private i32!: Int32Array;
  private f64!: Float64Array;
  private stamp!: Float64Array;
  private seq = 0;
  /** Dirty keys in the order they became dirty (may hold keys flushed since; check flag()). */
  dirtyHi: number[] = [];
  dirtyLo: number[] = [];
  dirtyCount = 0;

  /**
   * `capacity` slots (a power of two). A `bounded` table never grows past them for clean entries: when full (half its
   * slots used) it drops its least recently used clean entries down to a quarter of its slots, and grows only while
   * the dirty ones alone need more room (shrinking back once they are written: trim, empty).
   */
  constructor(
    capacity = 1 << 16,
    private readonly bounded = false,
  ) {
    this.base = capacity;
    this.alloc(capacity);
  }

  private alloc(cap: number) {
    this.cap = cap;
    this.mask = cap - 1;
    const buf = new ArrayBuffer(cap * 32);
    this.i32 = new Int32Array(buf);
    this.f64 = new Float64Array(buf);
    this.stamp = new Float64Array(cap);
    // Resident from the start (the pages are written now, not one by one as keys land on them): a table of fixed
    // size adds nothing to the process's memory while it fills.
    this.i32.fill(0);
    this.stamp.fill(0);
  }

  /** Room for `extra` more keys (see the constructor): true when the table was rehashed (slots moved). */
  private room(extra: number): boolean {
    if ((this.size + extra + 1) * 2 <= this.cap) return false;
    if (this.bounded) {
      this.rehash(this.cap, this.seq - this.cap / 4);
      if ((this.size + extra + 1) * 2 <= this.cap) return true;
    }
    let cap = this.cap;
    while ((this.size + extra + 1) * 2 > cap) cap *= 2;
    this.rehash(cap, -Infinity);
    return true;
  }

  /** Mark a slot's key as just used (a bounded table drops the least recently used first). */
  touch(i: number): void {
    this.stamp[i] = this.seq++;
  }

  private slotFor(hi: number, lo: number): number {
    return (Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) >>> 0) & this.mask;
  }

  /** A slot's value in memory (a list id; the marks tables keep a time). */
  cur(i: number): number {
    return this.f64[(i << 2) + 2]!;
  }

  /** Set a slot's value in memory without marking it dirty (a read-through cache's own entries). */
  setCur(i: number, v: number): void {
    this.f64[(i << 2) + 2] = v;
  }

  /** A slot's value as written to disk. */
  disk(i: number): number {
    return this.f64[(i << 2) + 3]!;
  }

  /** A slot's dirty flag: 0 clean, 1 dirty (2: dirty, counted by a flush round under way). */
  flag(i: number): number {
    return this.i32[(i << 3) + 3]!;
  }

  setFlag(i: number, f: number): void {
    this.i32[(i << 3) + 3] = f;
  }

  /** Room for `extra` more keys without growing: slots stay where they are while that many are added. */
  reserve(extra: number): void {
    this.room(extra);
  }

  /** The slot of a key, or −1 when the table does not hold it. */
  find(hi: number, lo: number): number {
    const k = this.i32;
    let i = this.slotFor(hi, lo);
    for (;;) {
      const at = i << 3;
      if (k[at + 2] === EMPTY) return -1;
      if (k[at] === hi && k[at + 1] === lo) return i;
      i = (i + 1) & this.mask;
    }
  }

  /** Add a key not held yet with its list id (clean: the same in memory and on disk); returns its slot. */
  add(hi: number, lo: number, list: number): number {
    this.room(1);
    const k = this.i32;
    let i = this.slotFor(hi, lo);
    while (k[(i << 3) + 2] !== EMPTY) i = (i + 1) & this.mask;
    this.put(i, hi, lo, list);
    return i;
  }

  /**
   * The slot of a key when the table holds it, else −1 − the free slot where it would go (for addAt, before anything
   * else is added: one probe for a lookup and its insert).
   */
  probe(hi: number, lo: number): number {
    const k = this.i32;
    let i = this.slotFor(hi, lo);
    for (;;) {
      const at = i << 3;
      if (k[at + 2] === EMPTY) return -1 - i;
      if (k[at] === hi && k[at + 1] === lo) return i;
      i = (i + 1) & this.mask;
    }
  }

  /** add() of a key probe() did not find, at the free slot it gave (nothing added since); returns the key's slot. */
  addAt(i: number, hi: number, lo: number, list: number): number {
    if ((this.size + 1) * 2 > this.cap) return this.add(hi, lo, list);
    this.put(i, hi, lo, list);
    return i;
  }

  private put(i: number, hi: number, lo: number, list: number): void {
    const k = this.i32;
    const at = i << 3;
    k[at] = hi;
    k[at + 1] = lo;
    k[at + 2] = USED;
    k[at + 3] = 0;
    this.f64[(i << 2) + 2] = list;
    this.f64[(i << 2) + 3] = list;
    this.stamp[i] = this.seq++;
    this.size++;
  }

  /** Point a slot's block at list `to` in memory (marking it dirty). */
  set(i: number, to: number): void {
    this.f64[(i << 2) + 2] = to;
    const at = (i << 3) + 3;
    if (this.i32[at] === 0) {
      this.i32[at] = 1;
      this.dirtyCount++;
      this.dirtyHi.push(this.i32[i << 3]!);
      this.dirtyLo.push(this.i32[(i << 3) + 1]!);
    }
  }

  /** The slot's block was written: clean again. */
  clean(i: number): void {
    this.f64[(i << 2) + 3] = this.f64[(i << 2) + 2]!;
    const at = (i << 3) + 3;
    if (this.i32[at] === 1) {
      this.i32[at] = 0;
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

  /**
   * Past `max` entries keep half of them, the most recently used, in a table no larger than they need but never
   * smaller than it started (its memory is given back); only call when nothing is dirty.
   */
  trim(max: number): void {
    if (this.size > max) {
      let cap = 1 << 16;
      while (cap < max) cap *= 2;
      this.rehash(Math.max(this.base, Math.min(this.cap, cap)), this.seq - Math.floor(max / 2));
    } else if (this.bounded && this.cap > this.base && (this.size + 1) * 2 <= this.base)
      this.rehash(this.base, -Infinity);
  }

  /** Every held key's value in memory (list ids): what a cache of the lists must keep to spare reads. */
  values(): Set<number> {
    const out = new Set<number>();
    const k = this.i32;
    const f = this.f64;
    for (let i = 0; i < this.cap; i++) if (k[(i << 3) + 2] !== EMPTY) out.add(f[(i << 2) + 2]!);
    return out;
  }

  /** Drop every entry (nothing may be dirty); the table is back to the slots it started with. */
  clear(): void {
    this.alloc(this.base);
    this.size = 0;
    this.dirtyHi = [];
    this.dirtyLo = [];
    this.dirtyCount = 0;
  }

  /**
   * Drop every entry but keep the room it started with (nothing may be dirty): a table filled again to about that
   * size does not regrow. Room it grew past that is given back.
   */
  empty(): void {
    if (this.cap > this.base) this.alloc(this.base);
    else this.i32.fill(0);
    this.size = 0;
    this.dirtyHi = [];
    this.dirtyLo = [];
    this.dirtyCount = 0;
  }

  private rehash(cap: number, keepFrom: number) {
    const { i32, f64, stamp } = this;
    const old = this.cap;
    this.alloc(cap);
    this.size = 0;
    const k = this.i32;
    const v = this.f64;
    for (let i = 0; i < old; i++) {
      const at = i << 3;
      if (i32[at + 2] !== USED || (stamp[i]! < keepFrom && i32[at + 3] === 0)) continue;
      const hi = i32[at]!;
      const lo = i32[at + 1]!;
      let j = this.slotFor(hi, lo);
      while (k[(j << 3) + 2] !== EMPTY) j = (j + 1) & this.mask;
      const to = j << 3;
      k[to] = hi;
      k[to + 1] = lo;
      k[to + 2] = USED;
      k[to + 3] = i32[at + 3]!;
      v[(j << 2) + 2] = f64[(i << 2) + 2]!;
      v[(j << 2) + 3] = f64[(i << 2) + 3]!;
      this.stamp[j] = stamp[i]!;
      this.size++;
    }
  }
}

/**
 * A Bloom filter over 64-bit keys as int32 halves: `mightHold` is false only for keys never added. The index keeps one
 * over the blocks that may have a list on disk, so a block stored for the first time is not looked up in attr_blocks.
 */
const MAX_BITS = ATTR_FILTER_BITS;

export class KeyFilter {
  private bits: Int32Array;
  private mask: number;
  added = 0;

  /**
   * Room for about `expected` keys at ~1% false positives: a power of two from 2^23 bits (1 MiB) up to
   * ATTR_FILTER_BITS. Past that the false positives rise, and each one costs a lookup, never a wrong answer.
   */
  constructor(expected: number) {
    let n = 1 << 23;
    while (n < expected * 10 && n < MAX_BITS) n *= 2;
    this.bits = new Int32Array(n >>> 5);
    this.bits.fill(0); // resident from the start, not page by page as keys are added
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
