import { describe, expect, it } from "vitest";
import { addGaps, summarize } from "./itl";
import { Rng } from "./prng";

/** The straightforward reading of summarize's contract: runs as (value, count) pairs sorted by value, nearest rank. */
function reference(runs: readonly number[]): { mean: number | null; p95: number | null } {
  let total = 0;
  let sum = 0;
  const pairs: [number, number][] = [];
  for (let i = 0; i < runs.length; i += 2) {
    total += runs[i + 1]!;
    sum += runs[i]! * runs[i + 1]!;
    pairs.push([runs[i]!, runs[i + 1]!]);
  }
  if (total === 0) return { mean: null, p95: null };
  pairs.sort((a, b) => a[0] - b[0]);
  const rank = Math.ceil(0.95 * total);
  let seen = 0;
  for (const [v, c] of pairs) if ((seen += c) >= rank) return { mean: sum / total, p95: v };
  return { mean: sum / total, p95: pairs[pairs.length - 1]![0] };
}

describe("summarize: mean and p95 of inter-token gaps kept as runs", () => {
  it.each([
    { name: "no runs", runs: [], mean: null, p95: null },
    { name: "runs of no gaps", runs: [12, 0, 30, 0], mean: null, p95: null },
    { name: "one run", runs: [20, 5], mean: 20, p95: 20 },
    { name: "the p95 rank falls in the slow tail", runs: [10, 94, 50, 6], mean: 12.4, p95: 50 },
    { name: "the p95 rank is the last fast gap", runs: [50, 5, 10, 95], mean: 12, p95: 10 },
    { name: "equal values in separate runs count together", runs: [7, 50, 9, 3, 7, 47], mean: 7.06, p95: 7 },
    { name: "unsorted runs", runs: [30, 1, 10, 1, 20, 1], mean: 20, p95: 30 },
  ])("$name", ({ runs, mean, p95 }) => {
    const got = summarize(runs);
    expect(got.p95).toBe(p95);
    if (mean === null) expect(got.mean).toBeNull();
    else expect(got.mean).toBeCloseTo(mean, 9);
  });

  it("gives exactly the pairwise-sorted reading on random runs, including after runs were compacted", () => {
    const rng = new Rng(11);
    for (let trial = 0; trial < 300; trial++) {
      const runs: number[] = [];
      const distinct = 1 + rng.int(0, 40);
      for (let k = 0; k < 1 + rng.int(0, 700); k++)
        addGaps(runs, Math.round(rng.next() * distinct) * 1.25 + (rng.next() < 0.1 ? rng.next() : 0), rng.int(1, 9));
      expect(summarize(runs)).toEqual(reference(runs));
    }
  });

  it("a list longer than any seen before still reads right", () => {
    const runs: number[] = [];
    for (let i = 0; i < 2_000; i++) runs.push(2_000 - i, 1);
    expect(summarize(runs)).toEqual(reference(runs));
  });
});
