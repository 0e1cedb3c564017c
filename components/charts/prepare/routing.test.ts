import { describe, expect, it } from "vitest";
import { formatCost, formatLost, lossNote, lossRows, lossVerdict, OTHER, shareStacks } from "./routing";

const W = { from: 0, to: 40, step: 10 };

describe("lossRows", () => {
  it("fills every bucket, in percent, with null where a series has no data", () => {
    expect(
      lossRows(
        [
          { t: 10, share: 0.125 },
          { t: 20, share: 0 },
        ],
        [
          { t: 10, share: 0.5 },
          { t: 30, share: null },
        ],
        W,
      ),
    ).toEqual([
      { t: 0, loss: null, recomputed: null },
      { t: 10, loss: 12.5, recomputed: 50 },
      { t: 20, loss: 0, recomputed: null },
      { t: 30, loss: null, recomputed: null },
    ]);
  });
});

describe("shareStacks", () => {
  const rows = [
    { t: 0, workerId: "b", decisions: 3 },
    { t: 0, workerId: "a", decisions: 1 },
    { t: 20, workerId: "c", decisions: 2 },
    { t: 20, workerId: "b", decisions: 2 },
  ];

  it("shares per bucket in percent; buckets without decisions are gaps for every worker", () => {
    const s = shareStacks(rows, W);
    expect(s.keys.map((k) => k.key)).toEqual(["a", "b", "c"]);
    expect(s.data).toEqual([
      { t: 0, a: 25, b: 75, c: 0 },
      { t: 10, a: null, b: null, c: null },
      { t: 20, a: 0, b: 50, c: 50 },
      { t: 30, a: null, b: null, c: null },
    ]);
    expect(s.empty).toBe(false);
  });

  it("keeps the busiest workers and sums the rest as other", () => {
    const s = shareStacks(rows, W, 1);
    expect(s.keys).toEqual([
      { key: "b", color: "var(--series-1)" },
      { key: OTHER, color: "var(--muted)" },
    ]);
    expect(s.data[0]).toEqual({ t: 0, b: 75, other: 25 });
  });

  it("is empty without rows", () => {
    expect(shareStacks([], W)).toMatchObject({ keys: [], empty: true });
  });
});

describe("lossVerdict", () => {
  it.each<[number | null, number | null, string | null]>([
    [null, 0.5, null],
    [0.1, null, null],
    [0, 0, "Nothing was recomputed: every prompt token came from cache."],
    [
      0.02,
      0.6,
      "Mostly a cold or evicted workload, not routing: routing loss 2.0% of prompt tokens vs 60.0% recomputed overall.",
    ],
    [0.1, 0.4, "Routing explains part of the misses: routing loss 10.0% of prompt tokens vs 40.0% recomputed overall."],
    [
      0.3,
      0.4,
      "Routing is a large part of the misses: routing loss 30.0% of prompt tokens vs 40.0% recomputed overall. The router often chose load over a worker holding more of the prefix.",
    ],
  ])("lossVerdict(%j, %j)", (loss, recomputed, text) => {
    expect(lossVerdict(loss, recomputed)).toBe(text);
  });
});

describe("formatting", () => {
  it.each<[number, number | null, string]>([
    [12, 192, "192 tokens (12 blocks)"],
    [1, null, "1 block"],
    [0, 0, "0 tokens (0 blocks)"],
    [1500, null, "1,500 blocks"],
  ])("formatLost(%d, %j) = %s", (blocks, tokens, out) => {
    expect(formatLost(blocks, tokens)).toBe(out);
  });
  it.each<[number, string]>([
    [10, "10"],
    [12.5, "12.50"],
    [1234, "1,234"],
  ])("formatCost(%d) = %s", (c, out) => {
    expect(formatCost(c)).toBe(out);
  });
});

describe("lossNote", () => {
  const l = (decisions: number, unknownBlockSize: number, unit: "tokens" | "blocks", lost = 80, prompt = 4800) => ({
    decisions,
    unknownBlockSize,
    total: { lost, prompt, unit },
  });
  it.each<[string, ReturnType<typeof l>, string | null]>([
    ["no decisions: nothing to say", l(0, 0, "blocks", 0, 0), null],
    ["in tokens", l(30, 0, "tokens"), "80 of 4,800 prompt tokens"],
    [
      "in blocks, saying why",
      l(3, 1, "blocks", 34, 40),
      "34 of 40 prompt blocks (block size unknown for 1 of 3 decisions)",
    ],
  ])("%s", (_name, input, text) => {
    expect(lossNote(input)).toBe(text);
  });
});
