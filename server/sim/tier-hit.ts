import type { SimRequest } from "./types";

// Where a request's cached blocks came from: the tier code of each block the router planned to onboard, and the
// blocks a prefetch brought back for it; split into the request event's cached_tokens_by_tier and prefetched_tokens.

/** Tier codes of a request's onboard plan: 0 device, then the lower tiers. */
export const TIER_CODES = ["device", "host", "disk", "shared"] as const;

/** Where a request's cached blocks come from: tier codes of blocks [from, from + tiers.length), and marks of prefetched blocks. */
export type TierHit = {
  from: number;
  tiers: Uint8Array;
  /** Block positions a prefetch brought back to device for this request's trajectory (null: none). */
  prefetched: Uint8Array | null;
  /** Time the request waits for its blocks from lower tiers (and an in-flight prefetch) before it is scheduled (ms). */
  onboardMs: number;
};

/** Split a request's cached tokens by the tier each block came from, and count its prefetched tokens. */
export function cachedByTier(
  req: Pick<SimRequest, "cachedTokens">,
  hit: TierHit,
  blockSize: number,
): { byTier: Record<(typeof TIER_CODES)[number], number>; prefetched: number } {
  const byTier = { device: 0, host: 0, disk: 0, shared: 0 };
  let prefetched = 0;
  const blocks = Math.floor(req.cachedTokens / blockSize);
  for (let i = 0; i < blocks; i++) {
    const k = i - hit.from;
    const t = k >= 0 && k < hit.tiers.length ? hit.tiers[k]! : 0;
    byTier[TIER_CODES[t]!] += blockSize;
    if (t === 0 && hit.prefetched?.[i]) prefetched += blockSize;
  }
  byTier.device += req.cachedTokens - blocks * blockSize;
  return { byTier, prefetched };
}
