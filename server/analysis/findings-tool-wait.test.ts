import { describe, expect, it } from "vitest";
import { toolWaitResidency } from "./findings";

const base = { waits: 4, heldTokens: 4_000, survivedTokens: 1_000, waitMs: 120_000 };

describe("KV held while agents wait on tools", () => {
  it("is null without tool waits", () => {
    expect(toolWaitResidency({ ...base, waits: 0 })).toBeNull();
  });

  it.each([
    ["no tiers: nothing to say about prefetch", {}, null],
    [
      "prefetch saved: tokens back on device, priced at the rate onboarding turns paid",
      { prefetchedTokens: 2_000, onboardedTokens: 1_000, onboardMs: 50, onboardTurns: 1 },
      { prefetchedTokens: 2_000, savedMs: 100, onboardedTokens: 1_000, onboardTurns: 1, wouldSaveMs: 50 },
    ],
    [
      "offload without prefetch: what prefetch would save is the time turns waited for onboarding",
      { prefetchedTokens: 0, onboardedTokens: 3_000, onboardMs: 420.4, onboardTurns: 3 },
      { prefetchedTokens: 0, savedMs: null, onboardedTokens: 3_000, onboardTurns: 3, wouldSaveMs: 420 },
    ],
    [
      "everything prefetched: nothing left to save, no rate to price it",
      { prefetchedTokens: 5_000, onboardedTokens: 0, onboardMs: 0, onboardTurns: 0 },
      { prefetchedTokens: 5_000, savedMs: null, onboardedTokens: 0, onboardTurns: 0, wouldSaveMs: 0 },
    ],
  ])("%s", (_name, tiers, prefetch) => {
    const f = toolWaitResidency({ ...base, ...tiers })!;
    expect(f).toMatchObject({ waits: 4, survivedShare: 0.25, meanWaitMs: 30_000 });
    expect(f.prefetch).toEqual(prefetch);
  });
});
