import { describe, expect, it } from "vitest";
import {
  attributeTurn,
  blockCause,
  CAUSES,
  isDeviceResidency,
  onboardedFrom,
  type BlockFacts,
  type TurnInput,
} from "./attribution";

const fact = (o: Partial<BlockFacts> = {}): BlockFacts => ({
  residentOn: [],
  seenBefore: false,
  lastRemoval: null,
  localSeenBefore: false,
  ...o,
});
const turn = (o: Partial<TurnInput> = {}): TurnInput => ({
  inputTokens: 100,
  cachedTokens: 0,
  blockSize: 16,
  blockCount: 6,
  workerId: "w1",
  decision: null,
  ...o,
});
const sum = (t: Record<string, number>) => CAUSES.reduce((a, c) => a + (t[c] ?? 0), 0);

describe("blockCause", () => {
  it.each<[string, BlockFacts, Partial<TurnInput>, string]>([
    ["new content", fact(), {}, "cold"],
    ["content seen behind another prefix", fact({ localSeenBefore: true }), {}, "diverged"],
    ["no local hash", fact({ localSeenBefore: null }), {}, "unknown"],
    ["seen before, gone now", fact({ seenBefore: true }), {}, "evicted"],
    ["removed before", fact({ lastRemoval: { reason: "ttl", at: 1, workerId: "w1" } }), {}, "evicted"],
    ["on another worker, no decision", fact({ residentOn: ["w2"], seenBefore: true }), {}, "routed_away"],
    [
      "decision: best overlap beyond chosen",
      fact({ seenBefore: true }),
      { decision: { chosenOverlap: 0, bestOverlap: 4 } },
      "routed_away",
    ],
    [
      "decision: block past best overlap",
      fact({ residentOn: ["w2"], seenBefore: true }),
      { decision: { chosenOverlap: 0, bestOverlap: 0 } },
      "evicted",
    ],
  ])("%s → %s", (_, f, t, cause) => {
    expect(blockCause(2, f, turn(t), null)).toBe(cause);
  });

  it("a block still on the chosen worker inherits the cause of the break before it", () => {
    expect(blockCause(3, fact({ residentOn: ["w1"], seenBefore: true }), turn(), "evicted")).toBe("evicted");
    expect(blockCause(0, fact({ residentOn: ["w1"] }), turn(), null)).toBe("unknown");
  });
});

describe("attributeTurn", () => {
  it("nothing recomputed: all zero", () => {
    const a = attributeTurn(turn({ cachedTokens: 100 }), []);
    expect(a.recomputed).toBe(0);
    expect(sum(a.tokens)).toBe(0);
  });

  it("no hashes or no block size: everything unknown", () => {
    expect(attributeTurn(turn({ blockCount: 0 }), []).tokens.unknown).toBe(100);
    expect(attributeTurn(turn({ blockSize: null }), []).tokens.unknown).toBe(100);
  });

  it("partial first block and partial last block sum exactly (cached 20 of 100, 16-token blocks)", () => {
    // blocks 1..5 hashed (6 blocks = 96 tokens); tokens 20..96 by block, 96..100 the unhashed tail.
    const facts = [
      fact(),
      fact({ localSeenBefore: true }),
      fact({ seenBefore: true, lastRemoval: { reason: "capacity", at: 5, workerId: "w1" } }),
      fact(),
      fact(),
    ];
    const a = attributeTurn(turn({ cachedTokens: 20 }), facts);
    expect(a.recomputed).toBe(80);
    expect(a.tokens).toEqual({ cold: 12 + 16 + 16 + 4, diverged: 16, evicted: 16, routed_away: 0, unknown: 0 });
    expect(a.evictedBy).toEqual({ capacity: 16 });
    expect(a.mainRemoval).toEqual({ reason: "capacity", at: 5, workerId: "w1" });
    expect(sum(a.tokens)).toBe(a.recomputed);
  });

  it("cached beyond the hashed blocks: only the tail, as cold", () => {
    const a = attributeTurn(turn({ cachedTokens: 96 }), []);
    expect(a.tokens.cold).toBe(4);
  });

  it("missing facts count as unknown and still sum", () => {
    const a = attributeTurn(turn(), [fact()]);
    expect(a.tokens.cold).toBe(16 + 4);
    expect(a.tokens.unknown).toBe(80);
    expect(sum(a.tokens)).toBe(100);
  });

  it("cached larger than input clamps to zero recomputed", () => {
    expect(attributeTurn(turn({ cachedTokens: 500 }), []).recomputed).toBe(0);
  });
});

describe("storage tiers in attribution", () => {
  it.each([
    [null, true],
    [undefined, true],
    ["device", true],
    ["host", false],
    ["disk", false],
    ["shared", false],
  ])("a KV event on tier %s changes device residency: %s", (tier, expected) => {
    expect(isDeviceResidency(tier)).toBe(expected);
  });

  it.each([
    [null, []],
    [{ host: 0, disk: null }, []],
    [
      { host: 300, disk: 100, shared: 0 },
      [
        { tier: "host", tokens: 300 },
        { tier: "disk", tokens: 100 },
      ],
    ],
    [{ shared: 64 }, [{ tier: "shared", tokens: 64 }]],
  ])("cached tokens by tier %j are onboarded from %j", (byTier, expected) => {
    expect(onboardedFrom(byTier as Parameters<typeof onboardedFrom>[0])).toEqual(expected);
  });
});
