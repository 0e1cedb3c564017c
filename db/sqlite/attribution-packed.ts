import type Database from "better-sqlite3";
import { PackedKeys, type Merge, type Update, type Value } from "./packed-keys";

// The attribution index's hash-keyed tables as packed keys (see packed-keys.ts), one accessor per connection:
// attr_blocks (a block's list id, u32, 0: none; its first-seen mark, i40 or null) and attr_local (a local hash's
// first-seen mark, i40). Marks are ms after attr_state's 'epoch'.

/** attr_blocks' values. */
export const LIST = 0;
export const FIRST_AT = 1;

const blocks = new WeakMap<Database.Database, PackedKeys>();
const locals = new WeakMap<Database.Database, PackedKeys>();

export function attrBlocks(c: Database.Database): PackedKeys {
  let p = blocks.get(c);
  if (!p) blocks.set(c, (p = new PackedKeys(c, "attr_blocks", ["u32", "i40"])));
  return p;
}

export function attrLocal(c: Database.Database): PackedKeys {
  let p = locals.get(c);
  if (!p) locals.set(c, (p = new PackedKeys(c, "attr_local", ["i40"])));
  return p;
}

/** The earlier of two first-seen marks, either when one is null. */
export const earlier = (a: Value, b: Value): Value => (a === null ? b : b === null ? a : Math.min(a, b));

/** Forget what a rolled-back transaction did to the tables' layout (a split it undid). */
export function reloadPacked(c: Database.Database): void {
  blocks.get(c)?.reload();
  locals.get(c)?.reload();
}

/** Buckets a BucketWriter queues before it writes them (together: see PackedKeys.writeMany). */
const QUEUED_BUCKETS = 64;

/**
 * Updates of keys handed over in key order (high half ascending or descending, as the flushes take them), written a
 * few dozen buckets at a time: `add` queues one (and writes what is queued once that many buckets are), `end` writes
 * what is queued. Returns, from both, how many keys changed on disk.
 */
export class BucketWriter {
  private queued: Update[] = [];
  private buckets = 0;
  private last = NaN;
  constructor(
    private readonly p: PackedKeys,
    private readonly merge: Merge,
  ) {}

  add(hi: number, lo: number, values: readonly Value[]): number {
    const b = this.p.bucketOf(hi);
    let n = 0;
    if (b !== this.last) {
      if (this.buckets === QUEUED_BUCKETS) n = this.end();
      this.buckets++;
      this.last = b;
    }
    this.queued.push({ hi, lo, values });
    return n;
  }

  end(): number {
    if (this.queued.length === 0) return 0;
    const n = this.p.writeMany(this.queued, this.merge);
    this.queued = [];
    this.buckets = 0;
    this.last = NaN;
    return n;
  }
}
