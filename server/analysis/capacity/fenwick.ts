// A Fenwick tree with range add and prefix sum, over positions 1..size, in 32-bit integer arithmetic. The two trees
// wrap modulo 2^32; a prefix sum is exact whenever its true value fits in an int32 (the stack's counts always do).

export class RangeFenwick {
  size: number;
  private a: Int32Array;
  private b: Int32Array;

  constructor(size: number) {
    this.size = size;
    this.a = new Int32Array(size + 1);
    this.b = new Int32Array(size + 1);
  }

  /** Empty the tree, now over positions 1..size (its arrays kept when they are large enough). */
  reset(size: number): void {
    this.size = size;
    if (this.a.length > size) {
      this.a.fill(0, 0, size + 1);
      this.b.fill(0, 0, size + 1);
    } else {
      this.a = new Int32Array(size + 1);
      this.b = new Int32Array(size + 1);
    }
  }

  /** Add `v` to every position in [lo, hi] (1-based, inclusive). */
  addRange(lo: number, hi: number, v: number): void {
    this.add(lo, v, Math.imul(v, lo - 1));
    if (hi + 1 <= this.size) this.add(hi + 1, -v, -Math.imul(v, hi));
  }

  /** Sum of positions 1..p (0 for p ≤ 0). */
  prefix(p: number): number {
    let sa = 0;
    let sb = 0;
    for (let i = p; i > 0; i -= i & -i) {
      sa = (sa + this.a[i]!) | 0;
      sb = (sb + this.b[i]!) | 0;
    }
    return (Math.imul(sa, p) - sb) | 0;
  }

  private add(i: number, va: number, vb: number): void {
    const a = this.a;
    const b = this.b;
    for (; i <= this.size; i += i & -i) {
      a[i] = (a[i]! + va) | 0;
      b[i] = (b[i]! + vb) | 0;
    }
  }
}
