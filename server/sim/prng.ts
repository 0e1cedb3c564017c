// Seeded pseudo-random numbers (sfc32) with the distributions the workload draws from.
// Streams are forked by label so one subsystem's draws never shift another's.

/** A 32-bit string hash (FNV-1a) used to derive stream seeds from labels. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spare: number | null = null;
  private readonly seed: number;

  constructor(seed: number | string) {
    const s = typeof seed === "string" ? hashString(seed) : seed >>> 0;
    this.seed = s;
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = s ^ 0xdeadbeef;
    for (let i = 0; i < 15; i++) this.u32();
  }

  /** A uniform unsigned 32-bit integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** An independent stream named by label (the same label always gives the same stream). */
  fork(label: string | number): Rng {
    return new Rng(hashString(String(label), this.u32()));
  }

  /** A stream named by label that depends only on this stream's seed, not on how far it was drawn. */
  derive(label: string | number): Rng {
    return new Rng(hashString(String(label), this.seed));
  }

  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** An integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Pick by weight; weights need not sum to 1. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let x = this.next() * total;
    for (const [item, w] of items) {
      x -= w;
      if (x < 0) return item;
    }
    return items[items.length - 1]![0];
  }

  /** Standard normal (Box-Muller, caching the second value). */
  normal(): number {
    if (this.spare !== null) {
      const v = this.spare;
      this.spare = null;
      return v;
    }
    const u = 1 - this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** Lognormal with the given median and log-space sigma (heavy right tail). */
  lognormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Pareto with scale xm and shape alpha (smaller alpha, heavier tail). */
  pareto(xm: number, alpha: number): number {
    return xm / Math.pow(1 - this.next(), 1 / alpha);
  }

  /** Geometric count >= 1 with the given mean. */
  geometric(mean: number): number {
    if (mean <= 1) return 1;
    const p = 1 / mean;
    return 1 + Math.floor(Math.log(1 - this.next()) / Math.log(1 - p));
  }
}

/** Clamp and round a draw to an integer range. */
export function clampInt(value: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, Math.round(value)));
}
