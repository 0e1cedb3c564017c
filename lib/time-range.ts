// Time ranges as they live in the URL: a preset ending now (`range=15m`) or fixed bounds (`from`, `to`). Pure.

export const PRESETS = {
  "5m": 5 * 60_000,
  "15m": 15 * 60_000,
  "1h": 3_600_000,
  "6h": 6 * 3_600_000,
  "24h": 24 * 3_600_000,
  "7d": 7 * 24 * 3_600_000,
} as const;
export type Preset = keyof typeof PRESETS;
export const DEFAULT_PRESET: Preset = "15m";
export const MAX_SPAN_MS = 31 * 24 * 3_600_000;

export type RangeSpec = { preset: Preset } | { from: number; to: number };
export type ResolvedRange = { from: number; to: number; live: boolean };

/** Read a range from URL search params; anything unreadable falls back to the default preset. */
export function parseRange(params: { get(name: string): string | null }): RangeSpec {
  const preset = params.get("range");
  if (preset && Object.hasOwn(PRESETS, preset)) return { preset: preset as Preset };
  const from = Number(params.get("from"));
  const to = Number(params.get("to"));
  if (
    params.get("from") &&
    params.get("to") &&
    Number.isInteger(from) &&
    Number.isInteger(to) &&
    from >= 0 &&
    to > from &&
    to - from <= MAX_SPAN_MS
  ) {
    return { from, to };
  }
  return { preset: DEFAULT_PRESET };
}

/** Concrete bounds (Unix ms) at `now`; presets end now and are live. */
export function resolveRange(spec: RangeSpec, now: number): ResolvedRange {
  if ("preset" in spec) return { from: now - PRESETS[spec.preset], to: now, live: true };
  return { from: spec.from, to: spec.to, live: false };
}

/** The URL search string for a range. */
export function rangeQuery(spec: RangeSpec): string {
  return "preset" in spec ? `range=${spec.preset}` : `from=${spec.from}&to=${spec.to}`;
}
