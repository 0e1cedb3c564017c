// A set of 64-bit keys given as two 32-bit halves, in one open-addressing table of 32-bit words: no number boxing and
// no per-entry objects, so millions of block hashes cost 8 bytes each (plus load-factor slack) and no garbage.

export class PairSet {
  private keys: Uint32Array;
  private used: Uint8Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1 << 16) {
    let n = 1;
    while (n < capacity * 2) n <<= 1;
    this.keys = new Uint32Array(n * 2);
    this.used = new Uint8Array(n);
    this.mask = n - 1;
  }

  /** Add (hi, lo); returns true when it was already present. */
  addSeen(hi: number, lo: number): boolean {
    hi >>>= 0;
    lo >>>= 0;
    let i = slot(hi, lo) & this.mask;
    const keys = this.keys;
    while (this.used[i]) {
      if (keys[2 * i] === hi && keys[2 * i + 1] === lo) return true;
      i = (i + 1) & this.mask;
    }
    this.used[i] = 1;
    keys[2 * i] = hi;
    keys[2 * i + 1] = lo;
    if (++this.size * 2 > this.mask + 1) this.grow();
    return false;
  }

  has(hi: number, lo: number): boolean {
    hi >>>= 0;
    lo >>>= 0;
    let i = slot(hi, lo) & this.mask;
    while (this.used[i]) {
      if (this.keys[2 * i] === hi && this.keys[2 * i + 1] === lo) return true;
      i = (i + 1) & this.mask;
    }
    return false;
  }

  private grow(): void {
    const { keys, used } = this;
    const n = (this.mask + 1) * 2;
    this.keys = new Uint32Array(n * 2);
    this.used = new Uint8Array(n);
    this.mask = n - 1;
    this.size = 0;
    for (let i = 0; i < used.length; i++) if (used[i]) this.addSeen(keys[2 * i]!, keys[2 * i + 1]!);
  }
}

function slot(hi: number, lo: number): number {
  let h = Math.imul(hi ^ 0x9e3779b9, 0x85ebca6b) ^ lo;
  h = Math.imul(h ^ (h >>> 15), 0xc2b2ae35);
  return (h ^ (h >>> 13)) >>> 0;
}
