import type Database from "better-sqlite3";

// A table of 64-bit keys (as int32 halves hi, lo) with a few integer values each, many keys to a row. The row id is a
// bucket, the key's top 16 bits (hi >> 16, -32,768..32,767); its `entries` blob holds the bucket's keys sorted by their
// other 48 bits (unsigned), each as those 6 bytes (big-endian) followed by its values at fixed widths. A key then costs
// its 6 bytes and its values: a row per key costs ~12 bytes more (cell pointer, length, 9-byte row id) plus a record
// header and the room that inserts in random key order leave in half-split pages. One key is found by reading its
// bucket's row and a binary search in it; the attribution index (attr_blocks, attr_local) is kept this way.

/** A value's kind: `u32` an unsigned 32-bit integer (4 bytes), `i40` a signed integer within ±2^39 or null (5 bytes). */
export type ValueKind = "u32" | "i40";
export type Value = number | null;

const WIDTH: Record<ValueKind, number> = { u32: 4, i40: 5 };
/** The i40 bytes that stand for null (the smallest i40, never a value). */
const I40_NULL = -(2 ** 39);
const KEY_BYTES = 6;
/** Buckets read per query by `lookup` and `writeMany`, and written per statement by `writeMany`. */
const BUCKETS_PER_READ = 64;
const PUT_BUCKETS = 32;
const EMPTY = Buffer.alloc(0);

/** One key's new values for `write` (merged with what the bucket holds by the caller's merge). */
export type Update = { hi: number; lo: number; values: readonly Value[] };

/** What `write` keeps for a key: the merge of its old values (null when the bucket has none) with an update's. */
export type Merge = (old: Value[] | null, update: readonly Value[]) => readonly Value[] | null;

export const bucketOf = (hi: number): number => hi >> 16;
/** A bucket below every bucket (for `rewrite`'s first call). */
export const BEFORE_BUCKETS = -(2 ** 15) - 1;

/** Compare a key's low 48 bits (hi's low half, lo unsigned) with the entry at byte `at` of `b`. */
function compareAt(b: Buffer, at: number, h16: number, lo: number): number {
  const e16 = b.readUInt16BE(at);
  if (h16 !== e16) return h16 - e16;
  return lo - b.readUInt32BE(at + 2);
}

export class PackedKeys {
  /** Bytes per entry: the key's 6 and the values'. */
  readonly width: number;
  private readonly offsets: number[];
  private readonly getRow: Database.Statement;
  private readonly getRows: Database.Statement;
  private readonly getRange: Database.Statement;
  private readonly putRow: Database.Statement;
  private readonly putRows: Database.Statement;
  private readonly delRow: Database.Statement;

  constructor(
    private readonly c: Database.Database,
    readonly table: string,
    readonly kinds: readonly ValueKind[],
  ) {
    let at = KEY_BYTES;
    this.offsets = kinds.map((k) => {
      const o = at;
      at += WIDTH[k];
      return o;
    });
    this.width = at;
    this.getRow = c.prepare(`SELECT entries FROM ${table} WHERE bucket = ?`).pluck();
    this.getRows = c
      .prepare(`SELECT bucket, entries FROM ${table} WHERE bucket IN (${Array(BUCKETS_PER_READ).fill("?").join(",")})`)
      .raw();
    const put = (rows: number) =>
      `INSERT INTO ${table} (bucket, entries) VALUES ${Array(rows).fill("(?, ?)").join(", ")} ON CONFLICT(bucket) DO UPDATE SET entries = excluded.entries`;
    this.getRange = c.prepare(`SELECT bucket, entries FROM ${table} WHERE bucket BETWEEN ? AND ?`).raw();
    this.putRow = c.prepare(put(1));
    this.putRows = c.prepare(put(PUT_BUCKETS));
    this.delRow = c.prepare(`DELETE FROM ${table} WHERE bucket = ?`);
  }

  /** The entries of one bucket (undefined: none). */
  read(bucket: number): Buffer | undefined {
    return this.getRow.get(bucket) as Buffer | undefined;
  }

  /** The byte offset of key (hi, lo) among a bucket's entries, or -1. */
  find(b: Buffer, hi: number, lo: number): number {
    const h16 = hi & 0xffff;
    const u = lo >>> 0;
    let a = 0;
    let z = b.length / this.width - 1;
    while (a <= z) {
      const m = (a + z) >>> 1;
      const d = compareAt(b, m * this.width, h16, u);
      if (d === 0) return m * this.width;
      if (d > 0) a = m + 1;
      else z = m - 1;
    }
    return -1;
  }

  /** Value j of the entry at byte `at`. */
  value(b: Buffer, at: number, j: number): Value {
    const o = at + this.offsets[j]!;
    if (this.kinds[j] === "u32") return b.readUInt32BE(o);
    const v = b.readIntBE(o, 5);
    return v === I40_NULL ? null : v;
  }

  private values(b: Buffer, at: number): Value[] {
    return this.kinds.map((_, j) => this.value(b, at, j));
  }

  private put(out: Buffer, at: number, hi: number, lo: number, values: readonly Value[]): void {
    out.writeUInt16BE(hi & 0xffff, at);
    out.writeUInt32BE(lo >>> 0, at + 2);
    for (let j = 0; j < this.kinds.length; j++) {
      const v = values[j] ?? null;
      const o = at + this.offsets[j]!;
      if (this.kinds[j] === "u32") {
        if (v === null || !Number.isInteger(v) || v < 0 || v > 0xffffffff)
          throw new RangeError(`${this.table}: value ${j} must be an integer in 0..2^32-1, got ${v}`);
        out.writeUInt32BE(v, o);
      } else {
        if (v !== null && (!Number.isInteger(v) || v <= I40_NULL || v >= 2 ** 39))
          throw new RangeError(`${this.table}: value ${j} must be an integer within ±2^39, got ${v}`);
        out.writeIntBE(v ?? I40_NULL, o, 5);
      }
    }
  }

  /** A key's values, or undefined when its bucket does not hold it. */
  get(hi: number, lo: number): Value[] | undefined {
    const b = this.read(bucketOf(hi));
    if (!b) return undefined;
    const at = this.find(b, hi, lo);
    return at < 0 ? undefined : this.values(b, at);
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
    const buckets = [...new Set(ks.map((k) => bucketOf(hi[k]!)))];
    const rows = new Map<number, Buffer>();
    const args = new Array<number>(BUCKETS_PER_READ);
    for (let i = 0; i < buckets.length; i += BUCKETS_PER_READ) {
      for (let j = 0; j < BUCKETS_PER_READ; j++) args[j] = buckets[Math.min(i + j, buckets.length - 1)]!;
      for (const [bucket, b] of this.getRows.all(args) as [number, Buffer][]) rows.set(bucket, b);
    }
    for (const k of ks) {
      const b = rows.get(bucketOf(hi[k]!));
      if (!b) continue;
      const at = this.find(b, hi[k]!, lo[k]!);
      if (at >= 0) visit(k, b, at);
    }
  }

  /** Merge updates of keys of one bucket (see writeMany). */
  write(bucket: number, updates: Update[], merge: Merge): number {
    return this.writeMany([{ bucket, updates }], merge);
  }

  /**
   * Merge updates of keys into their buckets (call inside a transaction): each key keeps `merge(old values or null,
   * its update)`, several updates of one key merged in order, a null result leaving it out. The buckets are read
   * BUCKETS_PER_READ to a query and written PUT_BUCKETS to a statement. Returns how many keys changed.
   */
  writeMany(groups: readonly { bucket: number; updates: Update[] }[], merge: Merge): number {
    const byBucket = new Map<number, Update[]>();
    for (const g of groups) {
      for (const u of g.updates)
        if (bucketOf(u.hi) !== g.bucket)
          throw new RangeError(`${this.table}: key ${u.hi}:${u.lo} is not in bucket ${g.bucket}`);
      const had = byBucket.get(g.bucket);
      if (had) had.push(...g.updates);
      else byBucket.set(g.bucket, g.updates.slice());
    }
    const buckets = [...byBucket.keys()];
    const rows = this.readMany(buckets);
    let changed = 0;
    const puts: (number | Buffer)[] = [];
    for (const bucket of buckets) {
      const old = rows.get(bucket) ?? EMPTY;
      const r = this.merged(old, byBucket.get(bucket)!, merge);
      if (r.changed === 0) continue;
      changed += r.changed;
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
    return changed;
  }

  /**
   * The rows of these buckets (those that have one), BUCKETS_PER_READ to a query: a dense run of buckets (a flush's,
   * whose keys cover most of the table) as one range, read in key order, else by their numbers.
   */
  private readMany(buckets: readonly number[]): Map<number, Buffer> {
    const rows = new Map<number, Buffer>();
    const sorted = buckets.length > 1 ? Int32Array.from(buckets).sort() : buckets;
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

  /** A bucket's entries with updates merged in, and how many keys changed. */
  private merged(old: Buffer, updates: Update[], merge: Merge): { out: Buffer; changed: number } {
    updates.sort((x, y) => (x.hi & 0xffff) - (y.hi & 0xffff) || (x.lo >>> 0) - (y.lo >>> 0));
    const w = this.width;
    const out = Buffer.allocUnsafe(old.length + updates.length * w);
    let o = 0;
    let at = 0;
    let changed = 0;
    for (let u = 0; u < updates.length; u++) {
      const { hi, lo } = updates[u]!;
      const h16 = hi & 0xffff;
      const ulo = lo >>> 0;
      // The old entries below this key are copied as they are, in one run.
      const from = at;
      at = this.lowerBound(old, at, h16, ulo);
      old.copy(out, o, from, at);
      o += at - from;
      const held = at < old.length && compareAt(old, at, h16, ulo) === 0;
      let cur: Value[] | null = held ? this.values(old, at) : null;
      if (held) at += w;
      for (; u < updates.length; u++) {
        const x = updates[u]!;
        if ((x.hi & 0xffff) !== h16 || x.lo >>> 0 !== ulo) break;
        const next = merge(cur, x.values);
        cur = next === null ? null : next.slice();
      }
      u--;
      if (cur === null) {
        if (held) changed++;
        continue;
      }
      this.put(out, o, hi, lo, cur);
      if (!held || out.compare(old, at - w, at, o, o + w) !== 0) changed++;
      o += w;
    }
    old.copy(out, o, at);
    o += old.length - at;
    return { out: o === out.length ? out : out.subarray(0, o), changed };
  }

  /** The byte offset, from `from`, of the first entry not below key (h16, lo) in a bucket's entries. */
  private lowerBound(b: Buffer, from: number, h16: number, lo: number): number {
    const w = this.width;
    let a = from / w;
    let z = b.length / w;
    while (a < z) {
      const m = (a + z) >>> 1;
      if (compareAt(b, m * w, h16, lo) > 0) a = m + 1;
      else z = m;
    }
    return a * w;
  }

  /** Every entry, buckets in order: `visit(hi, lo, entries, at)`. */
  scan(visit: (hi: number, lo: number, b: Buffer, at: number) => void): void {
    const w = this.width;
    for (const [bucket, b] of this.c
      .prepare(`SELECT bucket, entries FROM ${this.table} ORDER BY bucket`)
      .raw()
      .iterate() as Iterable<[number, Buffer]>) {
      const top = bucket << 16;
      for (let at = 0; at < b.length; at += w) visit(top | b.readUInt16BE(at), b.readInt32BE(at + 2), b, at);
    }
  }

  /** Every key (as a signed 64-bit integer) with its values, in key order (for checks and tools; reads everything). */
  rows(): { hash: bigint; values: Value[] }[] {
    const out: { hash: bigint; values: Value[] }[] = [];
    this.scan((hi, lo, b, at) =>
      out.push({ hash: (BigInt(hi) << 32n) | BigInt(lo >>> 0), values: this.values(b, at) }),
    );
    return out;
  }

  /** How many keys the table holds for which `pred(entries, at)` is true (all of them without one). */
  count(pred?: (b: Buffer, at: number) => boolean): number {
    let n = 0;
    this.scan((_hi, _lo, b, at) => {
      if (!pred || pred(b, at)) n++;
    });
    return n;
  }

  /**
   * Rewrite up to `limit` buckets after bucket `after` (call inside a transaction): each key keeps `keep(values)`
   * (null: dropped). Returns the last bucket read (null when none is left after it) and how many keys changed.
   */
  rewrite(
    after: number,
    limit: number,
    keep: (values: Value[]) => readonly Value[] | null,
  ): { next: number | null; changed: number } {
    const rows = this.c
      .prepare(`SELECT bucket, entries FROM ${this.table} WHERE bucket > ? ORDER BY bucket LIMIT ?`)
      .raw()
      .all(after, limit) as [number, Buffer][];
    const w = this.width;
    let changed = 0;
    for (const [bucket, b] of rows) {
      const out = Buffer.allocUnsafe(b.length);
      let o = 0;
      let n = 0;
      for (let at = 0; at < b.length; at += w) {
        const hi = (bucket << 16) | b.readUInt16BE(at);
        const lo = b.readInt32BE(at + 2);
        const values = this.values(b, at);
        const kept = keep(values);
        if (kept === null) {
          n++;
          continue;
        }
        this.put(out, o, hi, lo, kept);
        if (!out.subarray(o, o + w).equals(b.subarray(at, at + w))) n++;
        o += w;
      }
      if (n === 0) continue;
      changed += n;
      if (o === 0) this.delRow.run(bucket);
      else this.putRow.run(bucket, out.subarray(0, o));
    }
    return { next: rows.length < limit ? null : rows[rows.length - 1]![0], changed };
  }
}
