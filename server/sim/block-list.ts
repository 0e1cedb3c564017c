// The block indexes a request (or a prefetch) references in one pool, in prompt order: a typed array grown by
// doubling with a length of its own. A JS array of them was the largest allocation of a run: grown by 1.5x from
// empty per request and trimmed when cut, its copies lived as long as the request, so every young-generation
// collection copied them; a typed array's storage is outside the heap the collector copies.

const NONE = new Int32Array(0);

export class BlockList {
  /** Block indexes [0, length). */
  ids: Int32Array = NONE;
  length = 0;

  push(b: number): void {
    if (this.length === this.ids.length) this.grow();
    this.ids[this.length++] = b;
  }

  /** The indexes as a plain array (tests, reports). */
  toArray(): number[] {
    return Array.from(this.ids.subarray(0, this.length));
  }

  private grow(): void {
    const ids = new Int32Array(Math.max(64, 2 * this.ids.length));
    ids.set(this.ids);
    this.ids = ids;
  }
}
