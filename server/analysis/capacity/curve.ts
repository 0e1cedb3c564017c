import type { RunSink } from "./stack-pass";
import { CAPACITY_CLASSES, type CapacityClass } from "./window-turns";

// Hit tokens as a function of cache size, kept only at chosen sizes ("edges") but exactly there: a block cached from
// size c on adds its tokens to every edge ≥ c, and a run of blocks whose thresholds climb by one adds a linear piece,
// so per edge a constant, an offset and a slope suffice (the curve at edge E is Σ const + Σ offset + E × Σ slope).

/** One size on a curve. */
export type CurvePoint = {
  /** Cache size in blocks (per worker on a per-worker curve, in all on a shared one). */
  blocks: number;
  /** Input tokens of the window's turns served from cache at this size. */
  hitTokens: number;
  /** hitTokens ÷ the window's input tokens, 0–1 (0 when there are none). */
  hitRate: number;
  /** hitTokens per retention class. */
  byClass: Record<CapacityClass, number>;
};

/** Sizes 0..maxBlocks in `points` even steps, with `at` added; sorted, distinct, whole blocks. */
export function curveEdges(maxBlocks: number, points: number, at: readonly number[] = []): number[] {
  const out = new Set<number>();
  for (let i = 0; i <= points; i++) out.add(Math.round((i * maxBlocks) / points));
  for (const a of at) out.add(Math.max(0, Math.round(a)));
  return [...out].sort((a, b) => a - b);
}

/** A RunSink that accumulates a curve at `edges` (sorted ascending). */
export class CurveSink implements RunSink {
  readonly edges: Float64Array;
  private k: number;
  private last: number;
  private flat: Float64Array;
  private offset: Float64Array;
  private slope: Float64Array;

  constructor(edges: readonly number[]) {
    this.edges = Float64Array.from(edges);
    this.k = edges.length;
    this.last = edges.length ? edges[edges.length - 1]! : -1;
    const n = this.k * CAPACITY_CLASSES.length;
    this.flat = new Float64Array(n);
    this.offset = new Float64Array(n);
    this.slope = new Float64Array(n);
  }

  run(cls: number, d0: number, m: number, len: number, tokens: number): void {
    let j = 0;
    if (m >= d0) {
      j = Math.min(len, m - d0 + 1);
      this.add(cls, m + 1, j * tokens);
    }
    if (j < len) this.ramp(cls, d0 + j + 1, d0 + len, tokens);
  }

  endTurn(): void {}

  /** `v` tokens cached at every size ≥ `c`. */
  add(cls: number, c: number, v: number): void {
    if (c > this.last) return;
    this.flat[cls * this.k + this.edgeAtLeast(c)]! += v;
  }

  /** `v` tokens cached at every size ≥ c, for each c in [a, b]. */
  ramp(cls: number, a: number, b: number, v: number): void {
    if (a > this.last) return;
    const base = cls * this.k;
    const ja = base + this.edgeAtLeast(a);
    this.slope[ja]! += v;
    this.offset[ja]! += v * (1 - a);
    if (b + 1 > this.last) return;
    const jb = base + this.edgeAtLeast(b + 1);
    this.slope[jb]! -= v;
    this.offset[jb]! += v * b;
  }

  /** The curve's points, hit rates over `inputTokens`; `scale` multiplies every token figure (sampling). */
  points(inputTokens: number, scale: readonly number[] = CAPACITY_CLASSES.map(() => 1)): CurvePoint[] {
    const out: CurvePoint[] = [];
    const acc = CAPACITY_CLASSES.map(() => ({ flat: 0, offset: 0, slope: 0 }));
    for (let j = 0; j < this.k; j++) {
      const e = this.edges[j]!;
      const byClass = {} as Record<CapacityClass, number>;
      let hit = 0;
      CAPACITY_CLASSES.forEach((name, c) => {
        const a = acc[c]!;
        a.flat += this.flat[c * this.k + j]!;
        a.offset += this.offset[c * this.k + j]!;
        a.slope += this.slope[c * this.k + j]!;
        const v = (a.flat + a.offset + e * a.slope) * scale[c]!;
        byClass[name] = v;
        hit += v;
      });
      out.push({ blocks: e, hitTokens: hit, hitRate: inputTokens > 0 ? hit / inputTokens : 0, byClass });
    }
    return out;
  }

  private edgeAtLeast(c: number): number {
    const e = this.edges;
    let lo = 0;
    let hi = this.k - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (e[mid]! >= c) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
