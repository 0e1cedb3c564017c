// A fixed-capacity binary min-heap of (time, block index) pairs in typed arrays: the TTL deadlines
// of one block pool, at most one entry per block.

export class TtlHeap {
  private at: Float64Array;
  private block: Int32Array;
  size = 0;

  constructor(capacity: number) {
    this.at = new Float64Array(capacity);
    this.block = new Int32Array(capacity);
  }

  /** Earliest deadline, or Infinity. */
  peekTime(): number {
    return this.size ? this.at[0]! : Infinity;
  }

  push(t: number, b: number): void {
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.at[parent]! <= t) break;
      this.at[i] = this.at[parent]!;
      this.block[i] = this.block[parent]!;
      i = parent;
    }
    this.at[i] = t;
    this.block[i] = b;
  }

  /** Remove the earliest entry and return its block index. */
  pop(): number {
    const top = this.block[0]!;
    const n = --this.size;
    const t = this.at[n]!;
    const b = this.block[n]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.at[r]! < this.at[l]! ? r : l;
      if (this.at[c]! >= t) break;
      this.at[i] = this.at[c]!;
      this.block[i] = this.block[c]!;
      i = c;
    }
    this.at[i] = t;
    this.block[i] = b;
    return top;
  }

  clear(): void {
    this.size = 0;
  }
}
