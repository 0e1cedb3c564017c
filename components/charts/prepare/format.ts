// Display formatting for KPI values. Pure. null (no data) always renders as an em dash, never 0.

export const NO_DATA = "—";

export function formatPercent(v: number | null, digits = 1): string {
  return v === null ? NO_DATA : `${(v * 100).toFixed(digits)}%`;
}

export function formatMs(v: number | null): string {
  if (v === null) return NO_DATA;
  if (v >= 10_000) return `${(v / 1000).toFixed(1)} s`;
  return `${Math.round(v)} ms`;
}

export function formatRate(perSecond: number | null): string {
  if (perSecond === null) return NO_DATA;
  if (perSecond >= 100) return perSecond.toFixed(0);
  if (perSecond >= 10) return perSecond.toFixed(1);
  return perSecond.toFixed(2);
}

export function formatCount(v: number | null): string {
  return v === null ? NO_DATA : v.toLocaleString("en-US");
}

/** "3 aggregated · 1 prefill" in a stable role order; NO_DATA when empty. */
export function formatRoles(byRole: Record<string, number>): string {
  const order = ["aggregated", "prefill", "decode"];
  const rank = (role: string) => (order.includes(role) ? order.indexOf(role) : order.length);
  const parts = Object.entries(byRole)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([role, n]) => `${n} ${role}`);
  return parts.length ? parts.join(" · ") : NO_DATA;
}
