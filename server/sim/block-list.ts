// The block indexes a request (or a prefetch) references in one pool, in prompt order: a typed array grown by
// doubling with a length of its own. A JS array of them was the largest allocation of a run: grown by 1.5x from
// empty per request and trimmed when cut, its copies lived as long as the request, so every young-generation
// collection copied them; a typed array's storage is outside the heap the collector copies.
//
// Arrays a pool is done with come back through `recycle` and are handed out again by size class (powers of two): a
// fresh array of a few thousand indexes cost its pages' first-touch faults at every request (half a second of a
// steady hour's preview), a reused one none. At most SPARES_PER_CLASS arrays wait per class.

const NONE = new Int32Array(0);
const MIN_IDS = 64;
export const SPARES_PER_CLASS = 16;
/** Spare arrays by size class: class k holds arrays of MIN_IDS << k indexes. */
const spares: Int32Array[][] = [];

/** An array of at least `n` indexes (a spare one when there is one). */
function take(n: number): Int32Array {
  let k = 0;
  while (MIN_IDS << k < n) k++;
  return spares[k]?.pop() ?? new Int32Array(MIN_IDS << k);
}

export class BlockList {
  /** Block indexes [0, length). */
  ids: Int32Array = NONE;
  length = 0;

  push(b: number): void {
    if (this.length === this.ids.length) this.grow(this.length + 1);
    this.ids[this.length++] = b;
  }

  /** Room for `n` indexes without growing: a request's list is sized once for its prompt, not doubled up to it. */
  reserve(n: number): void {
    if (this.ids.length < n) this.grow(n);
  }

  /** The indexes as a plain array (tests, reports). */
  toArray(): number[] {
    return Array.from(this.ids.subarray(0, this.length));
  }

  /**
   * Give this list's array back for reuse and leave the list empty. Only for a list nothing else reads any more (the
   * pool's caller dropped it): its array goes to the next list that needs one of its size.
   */
  recycle(): void {
    const ids = this.ids;
    this.ids = NONE;
    this.length = 0;
    giveBack(ids);
  }

  private grow(n: number): void {
    const ids = take(Math.max(n, 2 * this.ids.length));
    ids.set(this.ids.subarray(0, this.length));
    giveBack(this.ids);
    this.ids = ids;
  }
}

function giveBack(ids: Int32Array): void {
  if (ids.length < MIN_IDS) return;
  const k = 31 - Math.clz32(ids.length / MIN_IDS);
  if (MIN_IDS << k !== ids.length) return;
  const list = (spares[k] ??= []);
  if (list.length < SPARES_PER_CLASS) list.push(ids);
}
