// The entries of one bucket of a packed table (packed-keys.ts, which says why): each key's low 48 bits (hi's low 16,
// then lo, big-endian), sorted as unsigned, followed by the key's values at fixed widths. Pure: bytes in, bytes out.

/** A value's kind: `u32` an unsigned 32-bit integer (4 bytes), `i40` a signed integer within ±2^39 or null (5 bytes). */
export type ValueKind = "u32" | "i40";
export type Value = number | null;

/** One key's new values for a write (merged with what the bucket holds by the caller's merge). */
export type Update = { hi: number; lo: number; values: readonly Value[] };

/**
 * What a write keeps for a key: the merge of its old values (null when the bucket has none) with an update's (null:
 * left out). The arrays passed are reused after the call: return a new array, or `update` itself.
 */
export type Merge = (old: readonly Value[] | null, update: readonly Value[]) => readonly Value[] | null;

const WIDTH: Record<ValueKind, number> = { u32: 4, i40: 5 };
/** The i40 bytes that stand for null (the smallest i40, never a value). */
const I40_NULL = -(2 ** 39);
const KEY_BYTES = 6;

/** Compare a key's low 48 bits (hi's low half, lo unsigned) with the entry at byte `at` of `b`. */
function compareAt(b: Buffer, at: number, h16: number, lo: number): number {
  const e16 = b.readUInt16BE(at);
  if (h16 !== e16) return h16 - e16;
  return lo - b.readUInt32BE(at + 2);
}

export class EntryFormat {
  /** Bytes per entry: the key's 6 and the values'. */
  readonly width: number;
  private readonly offsets: number[];
  /** Scratch for an entry's old values and the merged ones, reused by `merged` (merges must not keep them). */
  private readonly oldScratch: Value[];
  private readonly curScratch: Value[];

  /** `name` names the table in errors. */
  constructor(
    private readonly name: string,
    readonly kinds: readonly ValueKind[],
  ) {
    let at = KEY_BYTES;
    this.offsets = kinds.map((k) => {
      const o = at;
      at += WIDTH[k];
      return o;
    });
    this.width = at;
    this.oldScratch = kinds.map(() => null);
    this.curScratch = kinds.map(() => null);
  }

  /** Value j of the entry at byte `at`. */
  value(b: Buffer, at: number, j: number): Value {
    const o = at + this.offsets[j]!;
    if (this.kinds[j] === "u32") return b.readUInt32BE(o);
    const v = b.readIntBE(o, 5);
    return v === I40_NULL ? null : v;
  }

  /** The values of the entry at byte `at`, in a new array. */
  values(b: Buffer, at: number): Value[] {
    return this.valuesInto(new Array<Value>(this.kinds.length), b, at);
  }

  private valuesInto(out: Value[], b: Buffer, at: number): Value[] {
    for (let j = 0; j < this.kinds.length; j++) out[j] = this.value(b, at, j);
    return out;
  }

  /** Write values at byte `at` of an entry (after its key), refusing a value its kind cannot hold. */
  private putValues(out: Buffer, at: number, values: readonly Value[]): void {
    for (let j = 0; j < this.kinds.length; j++) {
      const v = values[j] ?? null;
      const o = at + this.offsets[j]!;
      if (this.kinds[j] === "u32") {
        if (v === null || !Number.isInteger(v) || v < 0 || v > 0xffffffff)
          throw new RangeError(`${this.name}: value ${j} must be an integer in 0..2^32-1, got ${v}`);
        out.writeUInt32BE(v, o);
      } else {
        if (v !== null && (!Number.isInteger(v) || v <= I40_NULL || v >= 2 ** 39))
          throw new RangeError(`${this.name}: value ${j} must be an integer within ±2^39, got ${v}`);
        out.writeIntBE(v ?? I40_NULL, o, 5);
      }
    }
  }

  /** The byte offset of key (hi, lo) among a bucket's entries, or -1. */
  find(b: Buffer, hi: number, lo: number): number {
    const at = this.lowerBound(b, 0, hi & 0xffff, lo >>> 0);
    return at < b.length && compareAt(b, at, hi & 0xffff, lo >>> 0) === 0 ? at : -1;
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

  /**
   * A bucket's entries with updates of its keys merged in (several updates of one key in the order given), how many
   * keys changed, and how many more keys it holds.
   */
  merged(old: Buffer, updates: Update[], merge: Merge): { out: Buffer; changed: number; added: number } {
    // Stable: the updates of one key stay in the order given.
    updates.sort((x, y) => (x.hi & 0xffff) - (y.hi & 0xffff) || (x.lo >>> 0) - (y.lo >>> 0));
    const w = this.width;
    const out = Buffer.allocUnsafe(old.length + updates.length * w);
    const cur = this.curScratch;
    let o = 0;
    let at = 0;
    let changed = 0;
    let added = 0;
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
      let kept = held;
      if (held) {
        this.valuesInto(cur, old, at);
        at += w;
      }
      for (; u < updates.length; u++) {
        const x = updates[u]!;
        if ((x.hi & 0xffff) !== h16 || x.lo >>> 0 !== ulo) break;
        const next = merge(kept ? this.copyInto(this.oldScratch, cur) : null, x.values);
        kept = next !== null;
        if (kept) this.copyInto(cur, next!);
      }
      u--;
      if (!kept) {
        if (held) {
          changed++;
          added--;
        }
        continue;
      }
      out.writeUInt16BE(h16, o);
      out.writeUInt32BE(ulo, o + 2);
      this.putValues(out, o, cur);
      if (!held) added++;
      if (!held || out.compare(old, at - w, at, o, o + w) !== 0) changed++;
      o += w;
    }
    old.copy(out, o, at);
    o += old.length - at;
    return { out: o === out.length ? out : out.subarray(0, o), changed, added };
  }

  /**
   * A bucket's entries with each key's values replaced by `keep(values)` (null: the key dropped): the new entries
   * (null when nothing changed), how many keys changed and how many were dropped.
   */
  kept(
    b: Buffer,
    keep: (values: Value[]) => readonly Value[] | null,
  ): { out: Buffer | null; changed: number; dropped: number } {
    const w = this.width;
    const out = Buffer.allocUnsafe(b.length);
    let o = 0;
    let changed = 0;
    let dropped = 0;
    for (let at = 0; at < b.length; at += w) {
      const next = keep(this.values(b, at));
      if (next === null) {
        dropped++;
        continue;
      }
      b.copy(out, o, at, at + KEY_BYTES);
      this.putValues(out, o, next);
      if (out.compare(b, at, at + w, o, o + w) !== 0) changed++;
      o += w;
    }
    changed += dropped;
    return { out: changed === 0 ? null : out.subarray(0, o), changed, dropped };
  }

  private copyInto(to: Value[], from: readonly Value[]): Value[] {
    for (let j = 0; j < this.kinds.length; j++) to[j] = from[j] ?? null;
    return to;
  }
}
