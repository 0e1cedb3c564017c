// Cache-miss attribution (docs/architecture.md): every recomputed prompt token of a turn gets exactly one cause. Pure.

export const CAUSES = ["cold", "diverged", "evicted", "routed_away", "unknown"] as const;
export type Cause = (typeof CAUSES)[number];
export type CauseTokens = Record<Cause, number>;

/** Tiers a cached block can be onboarded from (a hit that cost time, not a recompute). */
export const ONBOARD_TIERS = ["host", "disk", "shared"] as const;
export type OnboardTier = (typeof ONBOARD_TIERS)[number];

/**
 * Whether a kv.stored / kv.removed of this storage tier changes device residency (null: sent before tiers existed, so
 * device). A block held only on host, disk or shared storage is not resident: a turn that finds it there onboards it.
 */
export function isDeviceResidency(storageTier: string | null | undefined): boolean {
  return storageTier === null || storageTier === undefined || storageTier === "device";
}

/**
 * The outcome "onboarded from <tier>" of a turn: its cached tokens that came from a lower tier, largest first (empty
 * when all came from device or the source did not split them).
 */
export function onboardedFrom(
  byTier: Partial<Record<OnboardTier, number | null>> | null | undefined,
): { tier: OnboardTier; tokens: number }[] {
  if (!byTier) return [];
  return ONBOARD_TIERS.map((tier) => ({ tier, tokens: byTier[tier] ?? 0 }))
    .filter((o) => o.tokens > 0)
    .sort((a, b) => b.tokens - a.tokens);
}

/** What was known about one prompt block (by its sequence hash) at the moment the turn arrived. */
export type BlockFacts = {
  /** Workers holding the block at arrival. */
  residentOn: readonly string[];
  /** Some earlier request computed it or some worker stored it before arrival. */
  seenBefore: boolean;
  /** The latest removal of the block before arrival (any worker; the chosen worker's when it had one). */
  lastRemoval: { reason: string; at: number; workerId: string } | null;
  /** Its content (local hash) appeared earlier in any prompt; null without a local hash. */
  localSeenBefore: boolean | null;
};

export type TurnInput = {
  inputTokens: number;
  cachedTokens: number;
  /** Tokens per block; null when the source did not say. */
  blockSize: number | null;
  /** Number of full blocks that carry a sequence hash (0 without hashes). */
  blockCount: number;
  workerId: string | null;
  /** The routing decision: the chosen and the best candidate's overlap, in blocks; null without one. */
  decision: { chosenOverlap: number; bestOverlap: number } | null;
};

export type Attribution = {
  recomputed: number;
  tokens: CauseTokens;
  /** Evicted tokens per removal reason. */
  evictedBy: Record<string, number>;
  /** The removal behind most evicted tokens (for the retention version in force), or null. */
  mainRemoval: { reason: string; at: number; workerId: string } | null;
};

/** Zeroed per-cause token counts. */
export function emptyCauses(): CauseTokens {
  return { cold: 0, diverged: 0, evicted: 0, routed_away: 0, unknown: 0 };
}

/** Block indexes [first, end) whose tokens were recomputed, for a turn; empty when there is nothing to decide per block. */
export function recomputedBlocks(t: TurnInput): { first: number; end: number } {
  if (!t.blockSize || t.blockCount === 0) return { first: 0, end: 0 };
  const first = Math.floor(Math.min(t.cachedTokens, t.inputTokens) / t.blockSize);
  const end = Math.min(t.blockCount, Math.ceil(t.inputTokens / t.blockSize));
  return { first, end: Math.max(first, end) };
}

/**
 * The cause of one recomputed block. A block another worker held more of is `routed_away` (from the routing decision
 * when there is one, else from residency); one held before but gone is `evicted`; otherwise new content is `cold`
 * unless its content appeared before behind a different prefix (`diverged`); without local hashes that is `unknown`.
 * A block still on the chosen worker did not cause the miss: it inherits the cause of the block before it.
 */
export function blockCause(i: number, f: BlockFacts, t: TurnInput, previous: Cause | null): Cause {
  if (t.decision) {
    if (i < t.decision.bestOverlap && t.decision.bestOverlap > t.decision.chosenOverlap) return "routed_away";
  } else if (t.workerId !== null && f.residentOn.some((w) => w !== t.workerId)) return "routed_away";
  if (t.workerId !== null && f.residentOn.includes(t.workerId)) return previous ?? "unknown";
  if (f.seenBefore || f.lastRemoval) return "evicted";
  if (f.localSeenBefore === null) return "unknown";
  return f.localSeenBefore ? "diverged" : "cold";
}

/**
 * Attribute a turn's recomputed tokens (input − cached, at token positions [cached, input)). `facts[k]` describes block
 * `first + k` of recomputedBlocks(t). Tokens past the last hashed block (the partial last block, never cacheable) are
 * `cold`; a turn without hashes or block size is all `unknown`. The causes sum to the recomputed tokens exactly.
 */
export function attributeTurn(t: TurnInput, facts: readonly BlockFacts[]): Attribution {
  const input = Math.max(0, t.inputTokens);
  const cached = Math.min(Math.max(0, t.cachedTokens), input);
  const recomputed = input - cached;
  const tokens = emptyCauses();
  const evictedBy: Record<string, number> = {};
  const removals = new Map<string, { r: NonNullable<BlockFacts["lastRemoval"]>; n: number }>();
  if (recomputed === 0) return { recomputed, tokens, evictedBy, mainRemoval: null };
  const bs = t.blockSize;
  if (!bs || t.blockCount === 0) {
    tokens.unknown = recomputed;
    return { recomputed, tokens, evictedBy, mainRemoval: null };
  }
  const { first, end } = recomputedBlocks({ ...t, inputTokens: input, cachedTokens: cached });
  let previous: Cause | null = null;
  let assigned = 0;
  for (let i = first; i < end; i++) {
    const n = Math.min((i + 1) * bs, input) - Math.max(i * bs, cached);
    if (n <= 0) continue;
    const f = facts[i - first];
    const cause: Cause = f ? blockCause(i, f, t, previous) : "unknown";
    tokens[cause] += n;
    assigned += n;
    previous = cause;
    if (cause === "evicted") {
      const reason = f?.lastRemoval?.reason ?? "unknown";
      evictedBy[reason] = (evictedBy[reason] ?? 0) + n;
      if (f?.lastRemoval) {
        const key = `${f.lastRemoval.reason}\u0000${f.lastRemoval.at}`;
        const e = removals.get(key) ?? { r: f.lastRemoval, n: 0 };
        e.n += n;
        removals.set(key, e);
      }
    }
  }
  tokens.cold += recomputed - assigned;
  let main: { r: NonNullable<BlockFacts["lastRemoval"]>; n: number } | null = null;
  for (const e of removals.values()) if (!main || e.n > main.n) main = e;
  return { recomputed, tokens, evictedBy, mainRemoval: main?.r ?? null };
}

/** The reason with the most tokens, or null for an empty record. */
export function mainReason(evictedBy: Record<string, number>): string | null {
  let best: string | null = null;
  for (const [k, v] of Object.entries(evictedBy)) if (best === null || v > (evictedBy[best] ?? 0)) best = k;
  return best;
}
