// Colours, labels and widths for recomputed-token causes. Pure.
import { formatCount } from "@/components/format";
import { CAUSES, type Cause, type CauseTokens } from "@/lib/attribution";

export { CAUSES, type Cause };

export const CAUSE_LABEL: Record<Cause, string> = {
  cold: "cold",
  diverged: "diverged",
  evicted: "evicted",
  routed_away: "routed away",
  unknown: "unknown",
};
export const CAUSE_COLOR: Record<Cause, string> = {
  cold: "#8c96a3",
  diverged: "#d4761c",
  evicted: "#b83280",
  routed_away: "#2f7fd1",
  unknown: "#c9ced6",
};

/** Causes from a row spelled with routedAway. */
export function causesOf(r: {
  cold: number;
  diverged: number;
  evicted: number;
  routedAway: number;
  unknown: number;
}): CauseTokens {
  return { cold: r.cold, diverged: r.diverged, evicted: r.evicted, routed_away: r.routedAway, unknown: r.unknown };
}

/** Each cause's share of the total (0 when nothing recomputed), in CAUSES order. */
export function causeShares(c: CauseTokens): { cause: Cause; tokens: number; share: number }[] {
  const total = CAUSES.reduce((a, k) => a + c[k], 0);
  return CAUSES.map((cause) => ({ cause, tokens: c[cause], share: total > 0 ? c[cause] / total : 0 }));
}

/** "diverged 12,000 · cold 300" for non-zero causes, largest first; "none" when nothing was recomputed. */
export function causeText(c: CauseTokens): string {
  const parts = causeShares(c)
    .filter((s) => s.tokens > 0)
    .sort((a, b) => b.tokens - a.tokens);
  return parts.length ? parts.map((s) => `${CAUSE_LABEL[s.cause]} ${formatCount(s.tokens)}`).join(" · ") : "none";
}
