import { mix4, toDecimal } from "./hashing";
import type { RemovalLog } from "./removal-log";
import type { RemovedHashes } from "./removed-hashes";

// The cluster-wide prefix index: every cached sequence hash, the worker slots holding it and each
// slot's block index. One open-addressing table keyed on the hash's two 32-bit halves (no string
// hashing, no per-entry objects); entry ids are cached per hashed block of a prompt.

export const MAX_SLOTS = 32;

/** Int32 per entry record, and the record's fields. */
const ENT = 4;
const HI = 0;
const LO = 1;
const MASK = 2;
const FLAGS = 3;
/** The entry's hash is a name kept in `names` (not the decimal of its halves). */
const NAMED = 1;
/** The entry was swept (its id is free or reused). */
const SWEPT = 2;
/** The entry is not in the table: only its list's cached id finds it (a position at or past the list's uniqueFrom). */
const UNTABLED = 4;

/** Sequence hashes (decimal strings and their 32-bit halves) with a cache of their index entry ids (-1: unknown). */
export type HashList = {
  readonly seq: readonly string[];
  /** Each hash's u64 halves: hi and lo of hash i at 2 i and 2 i + 1. */
  readonly words: Uint32Array;
  /** Entry ids cached per hash (-1: none known); the index writes them. */
  readonly ids: Int32Array;
  /** True when every seq[i] is toDecimal(hi[i], lo[i]) (the simulator's views): the index then keeps no string per entry. */
  readonly decimal?: boolean;
  /**
   * Blocks from this position on hold hashes no other list holds (while the index lives): the index keeps their entries
   * out of its table and finds them only by this list's cached ids, so a block stored for the first time costs no probe.
   * Such a hash is then invisible to lookups by string (lookup, maskOf): only the list reaches it. Absent: none.
   */
  readonly uniqueFrom?: number;
};

/** The 32-bit halves of a hash string: exact for u64 decimals, a murmur of the text otherwise (tests use names). */
export function hashKey(hash: string): [hi: number, lo: number] {
  if (/^\d{1,20}$/.test(hash) && BigInt(hash) < 1n << 64n) {
    const v = BigInt(hash);
    return [Number(v >> 32n), Number(v & 0xffffffffn)];
  }
  let hi = 0x2545f491;
  let lo = 0x7f4a7c15;
  for (let i = 0; i < hash.length; i++) {
    hi = mix4(hi, hash.charCodeAt(i), i, 1, 0);
    lo = mix4(lo, hash.charCodeAt(i), i, 2, 0);
  }
  return [hi, lo];
}

/** A HashList of hash strings (reports and tests; the simulator's views carry their halves already). */
export function hashList(seq: readonly string[]): HashList {
  const words = new Uint32Array(2 * seq.length);
  seq.forEach((h, i) => {
    const [hi, lo] = hashKey(h);
    words[2 * i] = hi;
    words[2 * i + 1] = lo;
  });
  return { seq, words, ids: new Int32Array(seq.length).fill(-1) };
}

/**
 * Every cached hash of the cluster: its worker-slot mask and, per slot, that worker's block index.
 * An entry no worker holds stays (mask 0) until a sweep, because evicted prefixes are often
 * recomputed soon after; sweeps run once the idle entries outnumber the live ones twice (and 2^18): over 20 steady
 * minutes that erases 41% fewer entries and inserts 32% fewer than sweeping at parity (65,536) did.
 */
export class PrefixIndex {
  /**
   * Each entry's record of ENT int32: its hash's halves (HI, LO; a swept entry's lo is inverted so that no cached id
   * matches it), its slot mask (MASK, read with maskAt) and flags (NAMED, SWEPT). One record, not an array per field:
   * a lookup that checks a cached id and then the mask reads one cache line.
   */
  ent = new Int32Array(ENT << 16);
  /**
   * Per worker slot, each entry's block index in that worker's pool (read only where the slot's mask bit is set). One
   * array per slot in use rather than one stride of MAX_SLOTS per entry: a store writes 4 bytes of a slot's array
   * instead of touching a 128-byte stride, the index's largest memory by far (45 MB for the steady hour's entries).
   */
  readonly slotBlocks: Int32Array[] = [];
  /** Strings of named entries (a list whose hashes are not decimals, see HashList.decimal), by id. */
  private names: (string | undefined)[] = [];
  /** Entry ids in use or swept: [0, count). */
  private count = 0;
  /**
   * Open-addressing table, linear probing, at most half full: slot s holds entry id + 1 (0: empty) at 2 s and that
   * entry's lo half at 2 s + 1, so that a probe past other entries compares their lo in the table's own cache line
   * instead of reading each one's record.
   */
  private table = new Int32Array(2 << 17);
  /** Slots in the table. */
  private slots = 1 << 17;
  /** Entries in the table (neither swept nor untabled). */
  private entries = 0;
  /**
   * Free entry ids, a stack whose top is the lowest id (the sweep refills it in that order, so that the blocks a
   * request stores get ascending ids and their records, slot arrays and later lookups are walked forward in memory).
   */
  private free = new Int32Array(1 << 16);
  private freeTop = 0;
  /** Entries that became idle since the last sweep (counted each time; one may be counted again once held and dropped). */
  private idleCount = 0;
  private live = 0;

  /** Hashes held by at least one worker. */
  get size(): number {
    return this.live;
  }

  /** Slot mask of entry `id`. */
  maskAt(id: number): number {
    return this.ent[id * ENT + MASK]!;
  }

  /** The hash string of entry `id`. */
  hashOf(id: number): string {
    const o = id * ENT;
    if (this.ent[o + FLAGS]! & NAMED) return this.names[id]!;
    return toDecimal(this.ent[o + HI]! >>> 0, this.ent[o + LO]! >>> 0);
  }

  /** Append entry `id`'s hash to `out` (its halves, and its string unless that is their decimal). */
  pushTo(out: RemovedHashes, id: number): void {
    const o = id * ENT;
    const ent = this.ent;
    out.push(ent[o + HI]! >>> 0, ent[o + LO]! >>> 0, ent[o + FLAGS]! & NAMED ? this.names[id]! : null);
  }

  /** Log entry `id`'s hash as removed under reason index `r` (see removal-log.ts). */
  logRemoval(log: RemovalLog, r: number, id: number): void {
    const o = id * ENT;
    const ent = this.ent;
    log.add(r, ent[o + HI]!, ent[o + LO]!, ent[o + FLAGS]! & NAMED ? this.names[id]! : null);
  }

  /** Entry id of a hash, or -1 (also for a hash its list keeps out of the table, see HashList.uniqueFrom). */
  lookup(hash: string): number {
    const [hi, lo] = hashKey(hash);
    return this.find(hi | 0, lo | 0);
  }

  /** Slot mask of a hash (0 when nobody holds it). */
  maskOf(hash: string): number {
    const id = this.lookup(hash);
    return id < 0 ? 0 : this.ent[id * ENT + MASK]!;
  }

  /** Entry id of list.seq[i], or -1, using and refreshing the list's id cache. */
  idAt(list: HashList, i: number): number {
    const hi = list.words[2 * i]! | 0;
    const lo = list.words[2 * i + 1]! | 0;
    const cached = list.ids[i]!;
    if (cached >= 0 && this.ent[cached * ENT + LO] === lo && this.ent[cached * ENT + HI] === hi) return cached;
    // A hash only this list holds is in the index only if the list's cached id says so.
    const id = i >= (list.uniqueFrom ?? Infinity) ? -1 : this.find(hi, lo);
    list.ids[i] = id;
    return id;
  }

  /** Entry id of list.seq[i], created if needed. */
  ensureAt(list: HashList, i: number): number {
    const hi = list.words[2 * i]! | 0;
    const lo = list.words[2 * i + 1]! | 0;
    const cached = list.ids[i]!;
    if (cached >= 0 && this.ent[cached * ENT + LO] === lo && this.ent[cached * ENT + HI] === hi) return cached;
    // A hash only this list holds, not found by its cached id, is new: its entry goes outside the table.
    const untabled = i >= (list.uniqueFrom ?? Infinity);
    // Else one probe finds the entry or the empty slot it goes into.
    const table = this.table;
    const m = this.slots - 1;
    let s = untabled ? 0 : this.home(hi, lo);
    for (; !untabled; s = (s + 1) & m) {
      const v = table[2 * s]!;
      if (v === 0) break;
      if (table[2 * s + 1] === lo && this.ent[(v - 1) * ENT + HI] === hi) {
        list.ids[i] = v - 1;
        return v - 1;
      }
    }
    const id = this.freeTop > 0 ? this.free[--this.freeTop]! : this.count++;
    if (id * ENT >= this.ent.length) this.grow();
    const o = id * ENT;
    const ent = this.ent;
    ent[o + HI] = hi;
    ent[o + LO] = lo;
    ent[o + MASK] = 0;
    // A free id's name was cleared by the sweep that freed it: a decimal entry writes nothing to `names`, which the
    // simulator's lists therefore never grow (a JS array of one slot per entry the garbage collector walks).
    if (list.decimal === true) ent[o + FLAGS] = untabled ? UNTABLED : 0;
    else {
      ent[o + FLAGS] = untabled ? NAMED | UNTABLED : NAMED;
      this.names[id] = list.seq[i]!;
    }
    list.ids[i] = id;
    if (untabled) return id;
    if (++this.entries * 2 > this.slots) this.rehash(this.slots * 2);
    else {
      table[2 * s] = id + 1;
      table[2 * s + 1] = lo;
    }
    return id;
  }

  /** Record a slot's copy of an entry. */
  add(id: number, bit: number, slot: number, block: number): void {
    const o = id * ENT + MASK;
    const mask = this.ent[o]!;
    if (mask === 0) this.live++;
    this.ent[o] = mask | bit;
    const blocks = this.slotBlocks[slot] ?? this.newSlot(slot);
    blocks[id] = block;
  }

  /** Block index of entry `id` in slot `slot`'s pool (meaningful only while the slot's bit is in the entry's mask). */
  blockAt(id: number, slot: number): number {
    return this.slotBlocks[slot]![id]!;
  }

  private newSlot(slot: number): Int32Array {
    const blocks = new Int32Array(this.ent.length / ENT);
    this.slotBlocks[slot] = blocks;
    return blocks;
  }

  /** Forget a slot's copy; an entry nobody holds becomes idle. */
  drop(id: number, bit: number): void {
    const o = id * ENT + MASK;
    const m = this.ent[o]! & ~bit;
    this.ent[o] = m;
    if (m !== 0) return;
    this.live--;
    if (++this.idleCount > Math.max(262_144, 2 * this.live)) this.sweep();
  }

  /** Leading matched blocks per slot (out[slot]) for the slots in `candidates`, over list.seq[0..n). */
  overlaps(list: HashList, n: number, candidates: number, out: number[]): void {
    let alive = candidates;
    for (let i = 0; i < n && alive !== 0; i++) {
      const id = this.idAt(list, i);
      const m = id < 0 ? 0 : this.ent[id * ENT + MASK]!;
      let dropped = alive & ~m;
      while (dropped !== 0) {
        const low = dropped & -dropped;
        out[31 - Math.clz32(low)] = i;
        dropped ^= low;
      }
      alive &= m;
    }
    while (alive !== 0) {
      const low = alive & -alive;
      out[31 - Math.clz32(low)] = n;
      alive ^= low;
    }
  }

  /**
   * Delete the entries held by nobody. A sweep deletes at least two thirds of the entries, so the table is rebuilt
   * from the entries kept rather than each deleted entry found and shifted out of its probe run; the records are read
   * in one pass from the highest id down, which refills the free stack lowest id on top. Which ids entries get and
   * which slots they sit in is no lookup's business: a swept entry reads as absent, an idle one as held by nobody.
   */
  private sweep(): void {
    let erased = 0;
    let untabled = 0;
    const ent = this.ent;
    if (this.free.length < this.count) this.free = new Int32Array(Math.max(this.count, 2 * this.free.length));
    const free = this.free;
    let top = 0;
    for (let id = this.count - 1; id >= 0; id--) {
      const o = id * ENT;
      const flags = ent[o + FLAGS]!;
      if ((flags & SWEPT) === 0) {
        if (ent[o + MASK] !== 0) continue;
        ent[o + FLAGS] = SWEPT;
        ent[o + LO] = ~ent[o + LO]!;
        if (flags & NAMED) this.names[id] = undefined;
        erased++;
        if (flags & UNTABLED) untabled++;
      }
      free[top++] = id;
    }
    this.freeTop = top;
    this.idleCount = 0;
    if (erased === untabled) return;
    this.entries -= erased - untabled;
    this.rehash(this.slots);
  }

  private home(hi: number, lo: number): number {
    return (lo ^ Math.imul(hi, 0x9e3779b1)) & (this.slots - 1);
  }

  private find(hi: number, lo: number): number {
    const table = this.table;
    const m = this.slots - 1;
    for (let s = this.home(hi, lo); ; s = (s + 1) & m) {
      const v = table[2 * s]!;
      if (v === 0) return -1;
      if (table[2 * s + 1] === lo && this.ent[(v - 1) * ENT + HI] === hi) return v - 1;
    }
  }

  /** A table of `size` slots holding every entry not swept nor untabled (including one just added). */
  private rehash(size: number): void {
    // A sweep keeps the size: its table is cleared and refilled rather than a new one of the same size allocated.
    const table = size === this.slots ? this.table.fill(0) : new Int32Array(2 * size);
    this.table = table;
    this.slots = size;
    const m = size - 1;
    const ent = this.ent;
    for (let id = 0; id < this.count; id++) {
      const o = id * ENT;
      if (ent[o + FLAGS]! & (SWEPT | UNTABLED)) continue;
      const lo = ent[o + LO]!;
      let s = this.home(ent[o + HI]!, lo);
      while (table[2 * s] !== 0) s = (s + 1) & m;
      table[2 * s] = id + 1;
      table[2 * s + 1] = lo;
    }
  }

  private grow(): void {
    const ent = new Int32Array(this.ent.length * 2);
    ent.set(this.ent);
    this.ent = ent;
    const slots = this.slotBlocks;
    for (let slot = 0; slot < slots.length; slot++) {
      const old = slots[slot];
      if (old === undefined) continue;
      const blocks = new Int32Array(ent.length / ENT);
      blocks.set(old);
      slots[slot] = blocks;
    }
  }
}
