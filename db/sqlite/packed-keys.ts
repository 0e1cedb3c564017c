import type Database from "better-sqlite3";
import { EntryFormat, type Merge, type Update, type Value, type ValueKind } from "./packed-entries";

export type { Merge, Update, Value, ValueKind } from "./packed-entries";

// A table of 64-bit keys (as int32 halves hi, lo) with a few integer values each, many keys to a row. A row is a
// bucket of keys that share their top bits; its `entries` blob holds the bucket's keys sorted by their low 48 bits
// (unsigned), each as those 6 bytes (big-endian) followed by its values at fixed widths (packed-entries.ts). A key then
// costs its 6 bytes and its values: a row per key costs ~12 bytes more (cell pointer, length, 9-byte row id) plus a
// record header and the room that inserts in random key order leave in half-split pages. One key is found by reading
// its bucket's row and a binary search in it; the attribution index (attr_blocks, attr_local) is kept this way.
//
// Buckets stay about a page in size however many keys the table holds (a write rewrites the buckets it touches whole,
// so a bucket many pages long would cost that many pages per key written): the table starts with 2^16 buckets (the
// keys' top 16 bits) and grows by linear hashing. Past LOAD keys a bucket on average, the next bucket in order is split
// in two by the next bit of its keys, one bucket per write past the load (a few kilobytes), until every bucket of the
// level is split and the next level (one more bit) begins. A bucket at level L (16 + L bits, number x) is row
// 2^(16+L) + x, so the levels' rows never meet; a key's bucket is its level-L bucket, or its level-(L+1) bucket when
// that one was split already. The level, the next bucket to split and the count of keys are kept in a state table.

/** Bits of the keys' top that pick a bucket before any split: 2^16 buckets (the entries hold the other 48). */
const BASE_BITS = 16;
/** Levels at most (buckets of up to 31 bits; 2^31 buckets of LOAD keys are far past any table). */
const MAX_LEVEL = 15;
/**
 * Keys per bucket on average before the next split. A bucket not yet split in its level holds up to twice the average
 * just before the level ends: 256 keys of 15 bytes, 3.8 KB, within one 4 KB page.
 */
const LOAD = 128;
/** Splits at most per write (the table catches up over later writes after a large one). */
const SPLITS_PER_WRITE = 64;
/** Buckets read per query by `lookup` and `writeMany`, and written per statement by `writeMany`. */
const BUCKETS_PER_READ = 64;
const PUT_BUCKETS = 32;
const EMPTY = Buffer.alloc(0);

/** A row number below every bucket's (for `rewrite`'s first call). */
export const BEFORE_BUCKETS = 0;

/** Bits of a bucket's row number (16 + its level): the row is 2^bits + its number within the level. */
const bitsOf = (row: number): number => (row >= 2 ** 32 ? 32 : 31 - Math.clz32(row));

/** The top 16 bits of the keys of bucket row `row` (the rest of each key is in its entry). */
function top16Of(row: number): number {
  const bits = bitsOf(row);
  return Math.floor((row - 2 ** bits) / 2 ** (bits - BASE_BITS));
}

export type PackedOptions = {
  /** Average keys per bucket before a split (LOAD). */
  load?: number;
  /** The table keeping the level, split and count as (key, value) rows. */
  stateTable?: string;
};

export class PackedKeys {
  /** The entries' bytes: their width, values, search and merges. */
  readonly format: EntryFormat;
  private readonly load: number;
  private readonly getRow: Database.Statement;
  private readonly getRows: Database.Statement;
  private readonly getRange: Database.Statement;
  private readonly putRow: Database.Statement;
  private readonly putRows: Database.Statement;
  private readonly delRow: Database.Statement;
  private readonly getState: Database.Statement;
  private readonly setState: Database.Statement;
  /** The layout as read from the state table (see reload); keys -1 until the table was counted. */
  private level = 0;
  private split = 0;
  private keys = -1;

  constructor(
    private readonly c: Database.Database,
    readonly table: string,
    kinds: readonly ValueKind[],
    options: PackedOptions = {},
  ) {
    this.format = new EntryFormat(table, kinds);
    this.load = options.load ?? LOAD;
    this.getRow = c.prepare(`SELECT entries FROM ${table} WHERE bucket = ?`).pluck();
    this.getRows = c
      .prepare(`SELECT bucket, entries FROM ${table} WHERE bucket IN (${Array(BUCKETS_PER_READ).fill("?").join(",")})`)
      .raw();
    this.getRange = c.prepare(`SELECT bucket, entries FROM ${table} WHERE bucket BETWEEN ? AND ?`).raw();
    const put = (rows: number) =>
      `INSERT INTO ${table} (bucket, entries) VALUES ${Array(rows).fill("(?, ?)").join(", ")} ON CONFLICT(bucket) DO UPDATE SET entries = excluded.entries`;
    this.putRow = c.prepare(put(1));
    this.putRows = c.prepare(put(PUT_BUCKETS));
    this.delRow = c.prepare(`DELETE FROM ${table} WHERE bucket = ?`);
    const state = options.stateTable ?? "attr_state";
    this.getState = c.prepare(`SELECT key, value FROM ${state} WHERE key IN (?, ?, ?)`).raw();
    this.setState = c.prepare(
      `INSERT INTO ${state} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
    );
    this.reload();
  }

  /** Bytes per entry. */
  get width(): number {
    return this.format.width;
  }

  /**
   * Read the level, split and count again (one query): each write does (a write on another connection is seen), and
   * a caller whose transaction rolled back must (reads would look in buckets of the split it undid).
   */
  reload(): void {
    const t = this.table;
    const got = new Map(this.getState.all(`${t}_level`, `${t}_split`, `${t}_keys`) as [string, number][]);
    this.level = got.get(`${t}_level`) ?? 0;
    this.split = got.get(`${t}_split`) ?? 0;
    this.keys = got.get(`${t}_keys`) ?? -1;
  }

  /** Save the count of keys, and the level and split when a split moved them. */
  private save(split: boolean): void {
    const t = this.table;
    this.setState.run(`${t}_keys`, this.keys);
    if (!split) return;
    this.setState.run(`${t}_level`, this.level);
    this.setState.run(`${t}_split`, this.split);
  }

  /** The row of the bucket that holds (or would hold) a key with high half `hi`. */
  bucketOf(hi: number): number {
    const u = hi >>> 0;
    const bits = BASE_BITS + this.level;
    const x = Math.floor(u / 2 ** (32 - bits));
    if (x >= this.split) return 2 ** bits + x;
    return 2 ** (bits + 1) + Math.floor(u / 2 ** (31 - bits));
  }

  /** Buckets in use (2^16 at first). */
  buckets(): number {
    return 2 ** (BASE_BITS + this.level) + this.split;
  }

  /** The entries of one bucket (undefined: none). */
  read(bucket: number): Buffer | undefined {
    return this.getRow.get(bucket) as Buffer | undefined;
  }

  /** The byte offset of key (hi, lo) among a bucket's entries, or -1. */
  find(b: Buffer, hi: number, lo: number): number {
    return this.format.find(b, hi, lo);
  }

  /** Value j of the entry at byte `at`. */
  value(b: Buffer, at: number, j: number): Value {
    return this.format.value(b, at, j);
  }

  /** A key's values, or undefined when its bucket does not hold it. */
  get(hi: number, lo: number): Value[] | undefined {
    const b = this.read(this.bucketOf(hi));
    if (!b) return undefined;
    const at = this.find(b, hi, lo);
    return at < 0 ? undefined : this.format.values(b, at);
  }

  /**
   * For the keys `ks` (indexes into `hi`, `lo`), `visit(k, entries, at)` for each one held: their buckets read
   * BUCKETS_PER_READ to a query.
   */
  lookup(
    hi: ArrayLike<number>,
    lo: ArrayLike<number>,
    ks: readonly number[],
    visit: (k: number, b: Buffer, at: number) => void,
  ): void {
    if (ks.length === 0) return;
    const rows = this.readMany([...new Set(ks.map((k) => this.bucketOf(hi[k]!)))]);
    for (const k of ks) {
      const b = rows.get(this.bucketOf(hi[k]!));
      if (!b) continue;
      const at = this.find(b, hi[k]!, lo[k]!);
      if (at >= 0) visit(k, b, at);
    }
  }

  /**
   * Merge updates of keys into their buckets (call inside a transaction): each key keeps `merge(old values or null,
   * its update)`, several updates of one key merged in the order given, a null result leaving it out. The buckets are
   * read BUCKETS_PER_READ to a query and written PUT_BUCKETS to a statement; then buckets are split while the table is
   * past its load. Returns how many keys changed.
   */
  writeMany(updates: readonly Update[], merge: Merge): number {
    if (updates.length === 0) return 0;
    this.reload();
    this.size();
    const byBucket = new Map<number, Update[]>();
    for (const u of updates) {
      const b = this.bucketOf(u.hi);
      const had = byBucket.get(b);
      if (had) had.push(u);
      else byBucket.set(b, [u]);
    }
    const buckets = [...byBucket.keys()];
    const rows = this.readMany(buckets);
    let changed = 0;
    const puts: (number | Buffer)[] = [];
    for (const bucket of buckets) {
      const old = rows.get(bucket) ?? EMPTY;
      const r = this.format.merged(old, byBucket.get(bucket)!, merge);
      if (r.changed === 0) continue;
      changed += r.changed;
      this.keys += r.added;
      if (r.out.length === 0) {
        if (old.length > 0) this.delRow.run(bucket);
        continue;
      }
      puts.push(bucket, r.out);
      if (puts.length === 2 * PUT_BUCKETS) {
        this.putRows.run(puts);
        puts.length = 0;
      }
    }
    for (let j = 0; j < puts.length; j += 2) this.putRow.run(puts[j], puts[j + 1]);
    this.save(this.grow());
    return changed;
  }

  /** Split buckets in order while the table holds more than its load (at most SPLITS_PER_WRITE now); true if any. */
  private grow(): boolean {
    let n = 0;
    for (; n < SPLITS_PER_WRITE && this.level < MAX_LEVEL && this.keys > this.load * this.buckets(); n++) {
      const bits = BASE_BITS + this.level;
      const from = 2 ** bits + this.split;
      const b = this.read(from);
      if (b) {
        // The keys' next bit after the bucket's `bits` lies in the entries' first 16 (bits ≥ 16): the bucket's sorted
        // entries are those without it, then those with it.
        const mask = 1 << (31 - bits);
        let at = 0;
        while (at < b.length && (b.readUInt16BE(at) & mask) === 0) at += this.width;
        this.delRow.run(from);
        const low = 2 ** (bits + 1) + 2 * this.split;
        if (at > 0) this.putRow.run(low, b.subarray(0, at));
        if (at < b.length) this.putRow.run(low + 1, b.subarray(at));
      }
      this.split++;
      if (this.split === 2 ** bits) {
        this.level++;
        this.split = 0;
      }
    }
    return n > 0;
  }

  /**
   * The rows of these buckets (those that have one), BUCKETS_PER_READ to a query: a dense run of buckets (a flush's,
   * whose keys cover most of the table) as one range, read in key order, else by their numbers.
   */
  private readMany(buckets: readonly number[]): Map<number, Buffer> {
    const rows = new Map<number, Buffer>();
    const sorted = buckets.length > 1 ? Float64Array.from(buckets).sort() : buckets;
    const args = new Array<number>(BUCKETS_PER_READ);
    for (let i = 0; i < sorted.length; i += BUCKETS_PER_READ) {
      const n = Math.min(BUCKETS_PER_READ, sorted.length - i);
      if (n === 1) {
        const b = this.read(sorted[i]!);
        if (b) rows.set(sorted[i]!, b);
        continue;
      }
      const lo = sorted[i]!;
      const hi = sorted[i + n - 1]!;
      let got: [number, Buffer][];
      if (hi - lo < 2 * n) got = this.getRange.all(lo, hi) as [number, Buffer][];
      else {
        for (let j = 0; j < BUCKETS_PER_READ; j++) args[j] = sorted[i + Math.min(j, n - 1)]!;
        got = this.getRows.all(args) as [number, Buffer][];
      }
      for (const [bucket, b] of got) rows.set(bucket, b);
    }
    return rows;
  }

  /** Every entry, by bucket row (not in key order across levels): `visit(hi, lo, entries, at, row)`. */
  scan(visit: (hi: number, lo: number, b: Buffer, at: number, row: number) => void): void {
    const w = this.width;
    for (const [bucket, b] of this.c
      .prepare(`SELECT bucket, entries FROM ${this.table} ORDER BY bucket`)
      .raw()
      .iterate() as Iterable<[number, Buffer]>) {
      const top = top16Of(bucket) << 16;
      for (let at = 0; at < b.length; at += w) visit(top | b.readUInt16BE(at), b.readInt32BE(at + 2), b, at, bucket);
    }
  }

  /** Every key (as a signed 64-bit integer) with its values, in key order (for checks and tools; reads everything). */
  rows(): { hash: bigint; values: Value[] }[] {
    const out: { hash: bigint; values: Value[] }[] = [];
    this.scan((hi, lo, b, at) =>
      out.push({
        hash: (BigInt(hi) << 32n) | BigInt(lo >>> 0),
        values: this.format.values(b, at),
      }),
    );
    return out.sort((x, y) => (x.hash < y.hash ? -1 : x.hash > y.hash ? 1 : 0));
  }

  /** How many keys the table holds: the count it keeps (counted once when it has none). */
  size(): number {
    if (this.keys < 0) this.keys = this.count();
    return this.keys;
  }

  /** How many keys the table holds, counted entry by entry (a pass over the whole table). */
  count(): number {
    let n = 0;
    this.scan(() => n++);
    return n;
  }

  /**
   * Rewrite up to `limit` buckets after bucket row `after` (call inside a transaction): each key keeps `keep(values)`
   * (null: dropped). Returns the last row read (null when none is left after it) and how many keys changed.
   */
  rewrite(
    after: number,
    limit: number,
    keep: (values: Value[]) => readonly Value[] | null,
  ): { next: number | null; changed: number } {
    this.reload();
    this.size();
    const rows = this.c
      .prepare(`SELECT bucket, entries FROM ${this.table} WHERE bucket > ? ORDER BY bucket LIMIT ?`)
      .raw()
      .all(after, limit) as [number, Buffer][];
    let changed = 0;
    for (const [bucket, b] of rows) {
      const r = this.format.kept(b, keep);
      if (r.out === null) continue;
      changed += r.changed;
      this.keys -= r.dropped;
      if (r.out.length === 0) this.delRow.run(bucket);
      else this.putRow.run(bucket, r.out);
    }
    this.save(false);
    return { next: rows.length < limit ? null : rows[rows.length - 1]![0], changed };
  }
}
