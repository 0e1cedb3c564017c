// Inter-token latency of one request without per-token work: gaps are recorded as runs of equal
// values (a batch of identical decode passes adds one run), and the mean and p95 are read at the end.

import type { SimRequest } from "./types";

const MAX_RUNS = 256;

/** `count` tokens out at the ends of passes of `pass` ms from t0: the first is the first token or one more gap. */
export function emitTokens(r: SimRequest, count: number, t0: number, pass: number): void {
  const first = t0 + pass;
  const runs = r.itlRuns;
  if (r.firstTokenAt === null) r.firstTokenAt = first;
  else if (runs !== null) addGaps(runs, first - r.lastTokenAt, 1);
  if (runs !== null) addGaps(runs, pass, count - 1);
  r.generated += count;
  r.lastTokenAt = t0 + count * pass;
}

/** Add `count` gaps of `ms` each to runs stored flat as [value, count, value, count, …]. */
export function addGaps(runs: number[], ms: number, count: number): void {
  if (count <= 0) return;
  const n = runs.length;
  if (n >= 2 && runs[n - 2] === ms) {
    runs[n - 1]! += count;
    return;
  }
  runs.push(ms, count);
  if (runs.length > 2 * MAX_RUNS) compact(runs);
}

/** Scratch for summarize: the runs' values and counts, reordered in place by the selection. */
let values = new Float64Array(2 * MAX_RUNS + 2);
let counts = new Float64Array(2 * MAX_RUNS + 2);

/** Mean and 95th percentile (nearest rank) of the recorded gaps; nulls without any gap. */
export function summarize(runs: readonly number[]): { mean: number | null; p95: number | null } {
  let total = 0;
  let sum = 0;
  const n = runs.length >> 1;
  if (values.length < n) {
    values = new Float64Array(2 * n);
    counts = new Float64Array(2 * n);
  }
  for (let i = 0; i < n; i++) {
    const v = runs[2 * i]!;
    const c = runs[2 * i + 1]!;
    total += c;
    sum += v * c;
    values[i] = v;
    counts[i] = c;
  }
  if (total === 0) return { mean: null, p95: null };
  return { mean: sum / total, p95: weightedRank(n, Math.ceil(0.95 * total)) };
}

/**
 * The smallest value among values[0, n) whose own and smaller values' counts reach `rank` (≥ 1, at most their total),
 * by selection rather than sorting: a three-way partition around a pivot keeps the side the rank falls in (expected
 * linear time; the answer does not depend on the pivots). Reorders values and counts.
 */
function weightedRank(n: number, rank: number): number {
  const v = values;
  const c = counts;
  let lo = 0;
  let hi = n;
  let need = rank;
  while (hi - lo > 1) {
    const pivot = v[(lo + hi) >> 1]!;
    // [lo, lt) below the pivot, [lt, i) equal, [gt, hi) above.
    let lt = lo;
    let i = lo;
    let gt = hi;
    let below = 0;
    let equal = 0;
    while (i < gt) {
      const x = v[i]!;
      if (x < pivot) {
        below += c[i]!;
        swap(v, c, i++, lt++);
      } else if (x > pivot) swap(v, c, i, --gt);
      else equal += c[i++]!;
    }
    if (need <= below) hi = lt;
    else if (need <= below + equal) return pivot;
    else {
      need -= below + equal;
      lo = gt;
    }
  }
  return v[lo]!;
}

function swap(v: Float64Array, c: Float64Array, a: number, b: number): void {
  const x = v[a]!;
  v[a] = v[b]!;
  v[b] = x;
  const y = c[a]!;
  c[a] = c[b]!;
  c[b] = y;
}

/** Halve the number of runs: sort by value and merge neighbours into their weighted mean. */
function compact(runs: number[]): void {
  const pairs: [number, number][] = [];
  for (let i = 0; i < runs.length; i += 2) pairs.push([runs[i]!, runs[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  runs.length = 0;
  for (let i = 0; i < pairs.length; i += 2) {
    const a = pairs[i]!;
    const b = pairs[i + 1];
    if (!b) runs.push(a[0], a[1]);
    else runs.push((a[0] * a[1] + b[0] * b[1]) / (a[1] + b[1]), a[1] + b[1]);
  }
}
