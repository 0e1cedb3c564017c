import { KV_RECENT_BYTES, KV_RECENT_ROWS } from "../../lib/memory-bounds";

// The literal hashes of KV rows a connection stored recently (db/sqlite/kv-lists.ts compares later lists' runs against
// them), as 32-bit words in memory order (kv-locations.ts wordsOf): bounded in bytes, oldest dropped first.

/** Bytes of rows kept by default (the newest). */
export const RECENT_BYTES = KV_RECENT_BYTES;

/** A remembered row: its words at ring[at .. at + words), written when the ring's tail was at `abs`. */
export type Recent = { readonly at: number; readonly words: number; readonly abs: number };

/**
 * Rows' words by rowid in one ring (no typed array per row: far fewer objects for the GC to trace and sweep). The ring
 * holds twice `limit` bytes, so the rows kept (at most `limit` bytes, the newest) plus the end of the ring skipped when
 * a row does not fit there never reach round to a kept row's words.
 */
export class RecentRows {
  /** Null until the first row (connections that only read lists never allocate it). */
  ring: Uint32Array | null = null;
  private readonly size: number;
  /** Words ever written (the write position is tail % size). */
  private tail = 0;
  private rows = new Map<number, Recent>();
  private bytes = 0;
  /** The rows' rowids in insertion order from head on (a Map would skip every deleted entry to find its oldest). */
  private order: number[] = [];
  private head = 0;

  constructor(
    private readonly limit = RECENT_BYTES,
    private readonly maxRows = KV_RECENT_ROWS,
  ) {
    this.size = Math.ceil(limit / 2);
  }

  /** Keep a row's literal hashes (8-byte words); returns their offset in `ring`, or -1 when none are kept. */
  remember(rowid: number, literal: Buffer): number {
    const words = literal.byteLength / 4;
    if (words === 0) return -1;
    // Touched in full when allocated: resident from the first row, so the process does not grow as it fills.
    const ring = (this.ring ??= new Uint32Array(this.size).fill(0xffffffff));
    let at = this.tail % this.size;
    if (at + words > this.size) {
      this.tail += this.size - at;
      at = 0;
    }
    if (words > this.size) return -1;
    new Uint8Array(ring.buffer, at * 4, words * 4).set(literal);
    const entry: Recent = { at, words, abs: this.tail };
    this.tail += words;
    const had = this.rows.get(rowid);
    if (had) this.bytes -= had.words * 4;
    else this.order.push(rowid);
    this.rows.set(rowid, entry);
    this.bytes += literal.byteLength;
    while ((this.bytes > this.limit || this.rows.size > this.maxRows) && this.head < this.order.length) {
      const k = this.order[this.head++]!;
      this.bytes -= (this.rows.get(k)?.words ?? 0) * 4;
      this.rows.delete(k);
    }
    if (this.head > 65_536) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
    return at;
  }

  /** A kept row (its words are in `ring`), or undefined. */
  get(rowid: number): Recent | undefined {
    const r = this.rows.get(rowid);
    // A kept row's words are never written over (the ring's size); the check only guards that.
    return r && this.tail - r.abs <= this.size ? r : undefined;
  }

  clear(): void {
    this.rows.clear();
    this.bytes = 0;
    this.order = [];
    this.head = 0;
  }
}
