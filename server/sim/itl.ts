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

/** Scratch for summarize: run values sorted, and the gap count at each value's first position. */
let sorted = new Float64Array(2 * MAX_RUNS + 2);
let counts = new Float64Array(2 * MAX_RUNS + 2);

/** Mean and 95th percentile (nearest rank) of the recorded gaps; nulls without any gap. */
export function summarize(runs: readonly number[]): { mean: number | null; p95: number | null } {
  let total = 0;
  let sum = 0;
  const n = runs.length >> 1;
  if (sorted.length < n) {
    sorted = new Float64Array(2 * n);
    counts = new Float64Array(2 * n);
  }
  for (let i = 0; i < n; i++) {
    const v = runs[2 * i]!;
    const c = runs[2 * i + 1]!;
    total += c;
    sum += v * c;
    sorted[i] = v;
  }
  if (total === 0) return { mean: null, p95: null };
  const values = sorted.subarray(0, n).sort();
  counts.fill(0, 0, n);
  // Each run's count goes to the first position of its value (equal values share one), found by binary search.
  for (let i = 0; i < n; i++) {
    const v = runs[2 * i]!;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    counts[lo]! += runs[2 * i + 1]!;
  }
  const rank = Math.ceil(0.95 * total);
  let seen = 0;
  let p95 = values[n - 1]!;
  for (let i = 0; i < n; i++) {
    seen += counts[i]!;
    if (seen >= rank) {
      p95 = values[i]!;
      break;
    }
  }
  return { mean: sum / total, p95 };
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
