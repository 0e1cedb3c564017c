// Findings over sessions: an unstable prompt prefix, and KV held while agents wait on tools. Pure.

export type PrefixSession = { sessionId: string; local0: string | null; local1: string | null; diverged: number };

export type UnstablePrefix = {
  kind: "unstable_prefix";
  sessionsAffected: number;
  sessionsCompared: number;
  distinctFirstBlocks: number;
  tokensRecomputed: number;
  ttftCostMs: number | null;
  ttftPerTurnMs: number | null;
  remedy: string;
};

/** Sessions must share block 2 this often, with this share of distinct first blocks, to call the prefix unstable. */
const MIN_SESSIONS = 3;
const MIN_DISTINCT_SHARE = 0.5;

/**
 * An unstable prefix: many sessions whose first block differs (local hash of block 0) while the next block's content
 * matches (local hash of block 1) — a per-session header at the top of the prompt. Evidence: sessions affected, the
 * diverged tokens they recomputed, and a TTFT cost (mean TTFT of turns with diverged misses minus that of turns
 * mostly served from cache, × those turns). null when no group qualifies.
 */
export function unstablePrefix(
  sessions: readonly PrefixSession[],
  ttft: { divergedMean: number | null; divergedTurns: number; cleanMean: number | null },
): UnstablePrefix | null {
  const groups = new Map<string, PrefixSession[]>();
  for (const s of sessions) if (s.local0 && s.local1) groups.set(s.local1, [...(groups.get(s.local1) ?? []), s]);
  let best: PrefixSession[] | null = null;
  for (const g of groups.values()) if (!best || g.length > best.length) best = g;
  if (!best || best.length < MIN_SESSIONS) return null;
  const counts = new Map<string, number>();
  for (const s of best) counts.set(s.local0!, (counts.get(s.local0!) ?? 0) + 1);
  if (counts.size / best.length < MIN_DISTINCT_SHARE) return null;
  const common = Math.max(...counts.values());
  const perTurn =
    ttft.divergedMean !== null && ttft.cleanMean !== null ? Math.max(0, ttft.divergedMean - ttft.cleanMean) : null;
  return {
    kind: "unstable_prefix",
    sessionsAffected: common > 1 ? best.length - common : best.length,
    sessionsCompared: best.length,
    distinctFirstBlocks: counts.size,
    tokensRecomputed: best.reduce((a, s) => a + s.diverged, 0),
    ttftPerTurnMs: perTurn === null ? null : Math.round(perTurn),
    ttftCostMs: perTurn === null ? null : Math.round(perTurn * ttft.divergedTurns),
    remedy:
      "Enable preamble stripping (frontend policy strip_anthropic_preamble) so the per-session header no longer breaks the shared prefix.",
  };
}

/**
 * Sums over turns that followed a tool wait: KV held and still cached, and (storage tiers) tokens prefetched back to
 * device before the turn, tokens it onboarded from host/disk/shared storage, the time it waited for them (ms), and how
 * many turns onboarded anything.
 */
export type ToolWaitSums = {
  waits: number;
  heldTokens: number;
  survivedTokens: number;
  waitMs: number;
  prefetchedTokens?: number;
  onboardedTokens?: number;
  onboardMs?: number;
  onboardTurns?: number;
};

/**
 * KV held by agents waiting on tools, how much of it was still cached at their next turn, and what prefetch on resume
 * saved (tokens back on device before the turn, and the onboarding time that spared at the rate the onboarding turns
 * paid) or would save (the time turns still waited for blocks from lower tiers). null without waits.
 */
export function toolWaitResidency(s: ToolWaitSums) {
  if (s.waits === 0) return null;
  const prefetched = s.prefetchedTokens ?? 0;
  const onboarded = s.onboardedTokens ?? 0;
  const onboardMs = s.onboardMs ?? 0;
  const msPerToken = onboarded > 0 && onboardMs > 0 ? onboardMs / onboarded : null;
  return {
    kind: "tool_wait_kv" as const,
    waits: s.waits,
    heldTokens: s.heldTokens,
    survivedTokens: s.survivedTokens,
    survivedShare: s.heldTokens > 0 ? s.survivedTokens / s.heldTokens : null,
    meanWaitMs: Math.round(s.waitMs / s.waits),
    prefetch:
      prefetched + onboarded === 0
        ? null
        : {
            prefetchedTokens: prefetched,
            savedMs: msPerToken === null || prefetched === 0 ? null : Math.round(prefetched * msPerToken),
            onboardedTokens: onboarded,
            onboardTurns: s.onboardTurns ?? 0,
            wouldSaveMs: Math.round(onboardMs),
          },
  };
}
