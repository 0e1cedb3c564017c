import { describe, expect, it } from "vitest";
import {
  explainDecision,
  lossBuckets,
  rankCandidates,
  recomputedShare,
  routingLoss,
  routingLossSeries,
  runnerUp,
  type LossSums,
  type RouteCandidate,
} from "./routing";

/** A candidate from (prefill, overlap, decode) with its cost under the routing cost rule. */
function cand(
  id: string,
  prefill: number,
  overlap: number,
  decode: number,
  opts: { credit?: number; scale?: number; cost?: number } = {},
): RouteCandidate {
  const { credit = 1, scale = 1 } = opts;
  return {
    worker_id: id,
    prefill_blocks: prefill,
    overlap_blocks: overlap,
    decode_blocks: decode,
    cost: opts.cost ?? scale * Math.max(prefill - credit * overlap, 0) + decode,
  };
}

describe("explainDecision", () => {
  it.each<[string, string, RouteCandidate[], number, string, string | null, string]>([
    [
      "the routing cost rule's worked check: the second wins on load against the third",
      "w2",
      [cand("w1", 10, 2, 10), cand("w2", 10, 5, 5), cand("w3", 10, 8, 9)],
      0,
      "load",
      "w3",
      "won on load: 4 fewer decode blocks outweighed 3 fewer cached blocks",
    ],
    [
      "load beats a larger cache at a low prefill load scale",
      "a",
      [cand("a", 20, 0, 5, { scale: 0.1 }), cand("b", 20, 12, 8, { scale: 0.1 })],
      0,
      "load",
      "b",
      "won on load: 3 fewer decode blocks outweighed 12 fewer cached blocks",
    ],
    [
      "overlap alone",
      "a",
      [cand("a", 50, 40, 10), cand("b", 50, 0, 10)],
      0,
      "overlap",
      "b",
      "won on overlap: 40 more cached blocks",
    ],
    [
      "overlap outweighs more decode load",
      "a",
      [cand("a", 50, 40, 15), cand("b", 50, 0, 10), cand("c", 50, 1, 90)],
      0,
      "overlap",
      "b",
      "won on overlap: 40 more cached blocks outweighed 5 more decode blocks",
    ],
    [
      "overlap and load together",
      "a",
      [cand("a", 50, 40, 5), cand("b", 60, 0, 10)],
      0,
      "overlap_and_load",
      "b",
      "won on overlap and load: 40 more cached blocks, 10 fewer prefill blocks and 5 fewer decode blocks",
    ],
    [
      "a shorter prefill queue, singular block",
      "a",
      [cand("a", 9, 0, 3), cand("b", 10, 0, 3)],
      0,
      "load",
      "b",
      "won on load: 1 fewer prefill block",
    ],
    [
      "tie broken at random",
      "b",
      [cand("a", 10, 5, 5), cand("b", 10, 5, 5), cand("c", 10, 0, 5)],
      0,
      "tie",
      "a",
      "tie broken at random (cost 10 on 2 candidates)",
    ],
    [
      "sampled with temperature, not the lowest cost",
      "c",
      [cand("a", 10, 5, 5), cand("c", 10, 0, 5)],
      0.7,
      "sampled",
      "a",
      "sampled with temperature 0.7 (not the lowest cost: 15 vs 10 on a)",
    ],
    [
      "sampled and also the lowest cost",
      "a",
      [cand("a", 10, 5, 5), cand("c", 10, 0, 5)],
      0.7,
      "overlap",
      "c",
      "won on overlap: 5 more cached blocks; sampled with temperature 0.7",
    ],
    [
      "a cheaper worker passed over at temperature 0 (busy)",
      "c",
      [cand("a", 10, 5, 5), cand("c", 10, 0, 5)],
      0,
      "skipped_cheaper",
      "a",
      "chosen over cheaper a (cost 10 vs 15), which was likely busy",
    ],
    ["the only candidate", "a", [cand("a", 10, 0, 5)], 0, "only", null, "the only candidate"],
    [
      "reported costs differ with the same blocks",
      "a",
      [cand("a", 10, 0, 5, { cost: 4.5 }), cand("b", 10, 0, 5, { cost: 6 })],
      0,
      "cost",
      "b",
      "won on cost: 4.50 vs 6 with the same overlap and load",
    ],
  ])("%s", (_name, chosen, candidates, temperature, kind, runner, text) => {
    const e = explainDecision({ chosenWorkerId: chosen, candidates, temperature });
    expect(e).toEqual({ kind, winnerId: chosen, runnerUpId: runner, text });
  });
});

describe("runnerUp", () => {
  it("prefers the lowest cost, then more overlap, then the worker id", () => {
    const cs = [
      cand("w", 10, 0, 1),
      cand("z", 10, 4, 5, { cost: 7 }),
      cand("y", 10, 2, 5, { cost: 7 }),
      cand("x", 10, 4, 5, { cost: 7 }),
    ];
    expect(runnerUp("w", cs)?.worker_id).toBe("x");
  });
});

const sums = (o: Partial<LossSums>): LossSums => ({
  lostTokens: 0,
  promptTokens: 0,
  lostBlocks: 0,
  promptBlocks: 0,
  decisions: 1,
  unknownBlockSize: 0,
  ...o,
});

describe("routingLoss", () => {
  it.each<[string, LossSums, ReturnType<typeof routingLoss>]>([
    [
      "in tokens when every block size is known",
      sums({ lostTokens: 160, promptTokens: 1600, lostBlocks: 10, promptBlocks: 100 }),
      { share: 0.1, lost: 160, prompt: 1600, unit: "tokens" },
    ],
    [
      "in blocks when some block size is unknown",
      sums({
        lostTokens: 160,
        promptTokens: 1600,
        lostBlocks: 30,
        promptBlocks: 200,
        decisions: 3,
        unknownBlockSize: 1,
      }),
      { share: 0.15, lost: 30, prompt: 200, unit: "blocks" },
    ],
    [
      "no loss is 0, not null",
      sums({ promptTokens: 1600, promptBlocks: 100 }),
      { share: 0, lost: 0, prompt: 1600, unit: "tokens" },
    ],
    ["no decisions is null (a gap)", sums({ decisions: 0 }), { share: null, lost: 0, prompt: 0, unit: "blocks" }],
    ["empty prompts are null", sums({}), { share: null, lost: 0, prompt: 0, unit: "tokens" }],
  ])("%s", (_name, s, expected) => {
    expect(routingLoss(s)).toEqual(expected);
  });
});

describe("routingLossSeries", () => {
  it("uses one unit for every bucket: blocks as soon as any decision lacks a block size", () => {
    const s = routingLossSeries([
      { t: 0, ...sums({ lostTokens: 32, promptTokens: 320, lostBlocks: 2, promptBlocks: 20 }) },
      { t: 10, ...sums({ lostBlocks: 5, promptBlocks: 10, unknownBlockSize: 1 }) },
    ]);
    expect(s.unit).toBe("blocks");
    expect(s.points).toEqual([
      { t: 0, share: 0.1 },
      { t: 10, share: 0.5 },
    ]);
    expect(s.total.share).toBeCloseTo(7 / 30, 12);
  });

  it("in tokens, weights buckets by tokens rather than averaging their shares", () => {
    const s = routingLossSeries([
      { t: 0, ...sums({ lostTokens: 0, promptTokens: 9000, lostBlocks: 0, promptBlocks: 9 }) },
      { t: 10, ...sums({ lostTokens: 1000, promptTokens: 1000, lostBlocks: 1, promptBlocks: 1 }) },
    ]);
    expect(s.unit).toBe("tokens");
    expect(s.total.share).toBeCloseTo(0.1, 12);
    expect(s.points.map((p) => p.share)).toEqual([0, 1]);
  });
});

describe("recomputedShare", () => {
  it.each<[number, number, number | null]>([
    [1000, 800, 0.2],
    [1000, 1000, 0],
    [0, 0, null],
    [100, 150, 0],
  ])("recomputedShare(%d, %d) = %j", (input, cached, out) => {
    expect(recomputedShare(input, cached)).toBe(out);
  });
});

describe("rankCandidates", () => {
  const cs = [cand("d", 10, 0, 9), cand("a", 10, 0, 3), cand("b", 10, 5, 5), cand("c", 10, 0, 5)];
  it("orders by cost and marks the winner and runner-up", () => {
    expect(rankCandidates(cs, "b", "a").map((c) => [c.worker_id, c.cost, c.mark])).toEqual([
      ["b", 10, "winner"],
      ["a", 13, "runner_up"],
      ["c", 15, null],
      ["d", 19, null],
    ]);
  });
  it("cuts to max rows but keeps the winner and runner-up", () => {
    expect(rankCandidates(cs, "d", "b", 1).map((c) => c.worker_id)).toEqual(["b", "d"]);
  });
});

describe("lossBuckets", () => {
  const row = (t: number, workerId: string, decisions: number, lostBlocks: number, promptBlocks: number) => ({
    t,
    workerId,
    decisions,
    lostBlocks,
    promptBlocks,
  });
  it.each<[string, Parameters<typeof lossBuckets>, LossSums[]]>([
    [
      "worker block sizes turn blocks into tokens and buckets add up across workers",
      [
        [row(0, "a", 2, 5, 20), row(0, "b", 1, 1, 10)],
        new Map([
          ["a", 16],
          ["b", 32],
        ]),
        [],
      ],
      [
        {
          lostTokens: 5 * 16 + 32,
          promptTokens: 20 * 16 + 320,
          lostBlocks: 6,
          promptBlocks: 30,
          decisions: 3,
          unknownBlockSize: 0,
        },
      ],
    ],
    [
      "a worker without a block size takes its requests' sizes, and what they lack stays unknown",
      [
        [row(0, "x", 3, 4, 30)],
        new Map(),
        [{ t: 0, workerId: "x", lostTokens: 64, promptTokens: 320, unknownBlockSize: 1 }],
      ],
      [{ lostTokens: 64, promptTokens: 320, lostBlocks: 4, promptBlocks: 30, decisions: 3, unknownBlockSize: 1 }],
    ],
    [
      "no size anywhere: all unknown",
      [[row(0, "x", 2, 1, 10)], new Map(), []],
      [{ lostTokens: 0, promptTokens: 0, lostBlocks: 1, promptBlocks: 10, decisions: 2, unknownBlockSize: 2 }],
    ],
  ])("%s", (_name, args, expected) => {
    expect(lossBuckets(...args).map(({ t: _t, ...sums }) => sums)).toEqual(expected);
  });

  it("orders buckets by time", () => {
    expect(
      lossBuckets([row(20, "a", 1, 0, 1), row(10, "a", 1, 0, 1)], new Map([["a", 1]]), []).map((b) => b.t),
    ).toEqual([10, 20]);
  });
});
