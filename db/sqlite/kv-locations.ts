import { KV_LOCATION_SLOTS } from "../../lib/memory-bounds";

// Where KV events hold hashes literally (db/sqlite/kv-lists.ts): hash -> latest (kv_events rowid, position, time).

const SLOTS = KV_LOCATION_SLOTS;
/** The map is emptied when this full (open addressing stays short-probed; a clear only costs literal lists). */
const FULL = 0.6;

/**
 * Hash → latest literal location, open addressing on the hash's two 32-bit words (as the caller reads them; kv-lists.ts
 * takes them in memory order). One slot is six consecutive u32 (the two words, rowid low and high, position, event time
 * in seconds), so a lookup reads one cache line.
 * A rowid of 0 marks an empty slot (rowids start at 1).
 */
export class Locations {
  private t: Uint32Array;
  /** Entries in use, kept in memory the connections share when the map is shared. */
  private used: Int32Array;
  private readonly mask: number;
  private readonly maxEntries: number;

  /** `slots`: a power of two (a shared map has the default, KV_LOCATIONS_BYTES). */
  constructor(shared?: SharedArrayBuffer, slots = SLOTS) {
    if (shared && slots !== SLOTS) throw new Error("a shared location map has the default size");
    this.t = shared ? new Uint32Array(shared, 0, SLOTS * 6) : new Uint32Array(slots * 6);
    this.used = shared ? new Int32Array(shared, SLOTS * 24, 1) : new Int32Array(1);
    this.mask = slots - 1;
    this.maxEntries = slots * FULL;
  }

  get size(): number {
    return this.used[0]!;
  }

  private slot(hi: number, lo: number): number {
    const t = this.t;
    let i = (Math.imul(hi ^ Math.imul(lo, 0x9e3779b1), 0x85ebca6b) >>> 0) & this.mask;
    for (;;) {
      const o = i * 6;
      if ((t[o + 2] === 0 && t[o + 3] === 0) || (t[o] === hi && t[o + 1] === lo)) return o;
      i = (i + 1) & this.mask;
    }
  }

  /** Fill out.rowid[k] / out.pos[k] with the hash's location (rowid 0: unknown or older than minSec). */
  get(
    hi: number,
    lo: number,
    minSec: number,
    out: { rowid: Float64Array; pos: Int32Array; sec: Float64Array },
    k: number,
  ): void {
    const t = this.t;
    const o = this.slot(hi, lo);
    const rowid = t[o + 2]! + t[o + 3]! * 4_294_967_296;
    const found = rowid !== 0 && t[o + 5]! >= minSec;
    out.rowid[k] = found ? rowid : 0;
    out.pos[k] = found ? t[o + 4]! : 0;
    out.sec[k] = found ? t[o + 5]! : 0;
  }

  set(hi: number, lo: number, rowid: number, pos: number, sec: number): void {
    if (this.size >= this.maxEntries) this.clear();
    const t = this.t;
    const o = this.slot(hi, lo);
    if (t[o + 2] === 0 && t[o + 3] === 0) {
      t[o] = hi;
      t[o + 1] = lo;
      this.used[0]!++;
    }
    t[o + 2] = rowid % 4_294_967_296;
    t[o + 3] = Math.floor(rowid / 4_294_967_296);
    t[o + 4] = pos;
    t[o + 5] = sec;
  }

  clear(): void {
    this.t.fill(0);
    this.used[0] = 0;
  }
}

/**
 * A list of 8-byte hashes as 32-bit words in memory order (two per hash; a view when aligned, else a copy). Only
 * compared for equality and used as map keys, so the words' byte order does not matter.
 */
export function wordsOf(list: Buffer): Uint32Array {
  if (list.byteOffset % 4 === 0) return new Uint32Array(list.buffer, list.byteOffset, list.byteLength / 4);
  const w = new Uint32Array(list.byteLength / 4);
  new Uint8Array(w.buffer).set(list);
  return w;
}

/** Bytes of a location map shared by connections (see shareKvLocations in kv-lists.ts). */
export const KV_LOCATIONS_BYTES = SLOTS * 24 + 4;
