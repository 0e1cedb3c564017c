/** "12 s ago", "3 min ago", "2 h ago", or "never"; now and at in Unix ms. */
export function ago(at: number | null, now: number): string {
  if (at === null) return "never";
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min ago`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h ago`;
  return new Date(at).toLocaleString();
}

/** Seconds as "0.183 s" / "18 ms", or "–" for null. */
export function seconds(v: unknown): string {
  if (typeof v !== "number" || !Number.isFinite(v)) return "–";
  return v < 1 ? `${Math.round(v * 1000)} ms` : `${v.toFixed(2)} s`;
}

/** A 0–1 ratio as a percentage, or "–". */
export function percent(v: unknown): string {
  return typeof v === "number" && Number.isFinite(v) ? `${(v * 100).toFixed(1)} %` : "–";
}

/** A count with thousands separators, or "–". */
export function count(v: number | null | undefined): string {
  return typeof v === "number" ? v.toLocaleString("en-US") : "–";
}
