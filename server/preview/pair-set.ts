// A set of 64-bit keys given as two 32-bit halves, in one open-addressing table of 32-bit words: no number boxing and
// no per-entry objects, so millions of block hashes cost 8 bytes each (plus load-factor slack) and no garbage. A slot
// is empty when both its words are 0, so a probe reads one cache line (no occupancy array beside the keys); the key
// (0, 0) itself is kept as a flag.

export class PairSet {
  private keys: Uint32Array;
  private mask: number;
  private hasZero = false;
  size = 0;

  constructor(capacity = 1 << 16) {
    let n = 1;
    while (n < capacity * 2) n <<= 1;
    this.keys = new Uint32Array(n * 2);
    this.mask = n - 1;
  }

  /** Add (hi, lo); returns true when it was already present. */
  addSeen(hi: number, lo: number): boolean {
    hi >>>= 0;
    lo >>>= 0;
    if ((hi | lo) === 0) {
      if (this.hasZero) return true;
      this.hasZero = true;
      this.size++;
      return false;
    }
    const keys = this.keys;
    const mask = this.mask;
    let i = slot(hi, lo) & mask;
    for (;;) {
      const h = keys[2 * i]!;
      const l = keys[2 * i + 1]!;
      if (h === hi && l === lo) return true;
      if ((h | l) === 0) break;
      i = (i + 1) & mask;
    }
    keys[2 * i] = hi;
    keys[2 * i + 1] = lo;
    if (++this.size * 2 > mask + 1) this.grow();
    return false;
  }

  has(hi: number, lo: number): boolean {
    hi >>>= 0;
    lo >>>= 0;
    if ((hi | lo) === 0) return this.hasZero;
    const keys = this.keys;
    let i = slot(hi, lo) & this.mask;
    for (;;) {
      const h = keys[2 * i]!;
      const l = keys[2 * i + 1]!;
      if (h === hi && l === lo) return true;
      if ((h | l) === 0) return false;
      i = (i + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.keys;
    const n = (this.mask + 1) * 2;
    const keys = new Uint32Array(n * 2);
    const mask = n - 1;
    for (let j = 0; j < old.length; j += 2) {
      const hi = old[j]!;
      const lo = old[j + 1]!;
      if ((hi | lo) === 0) continue;
      let i = slot(hi, lo) & mask;
      while ((keys[2 * i]! | keys[2 * i + 1]!) !== 0) i = (i + 1) & mask;
      keys[2 * i] = hi;
      keys[2 * i + 1] = lo;
    }
    this.keys = keys;
    this.mask = mask;
  }
}

function slot(hi: number, lo: number): number {
  let h = Math.imul(hi ^ 0x9e3779b9, 0x85ebca6b) ^ lo;
  h = Math.imul(h ^ (h >>> 15), 0xc2b2ae35);
  return (h ^ (h >>> 13)) >>> 0;
}
