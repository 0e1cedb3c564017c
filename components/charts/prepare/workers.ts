// Chart data for the worker views: heatmap cells, small multiples, stacked classes, colours. Pure.
import { bucketStarts, fillColumn, formatTick, toPercent } from "./buckets";
import { formatPercent } from "@/components/format";

/**
 * One worker's buckets as the series procedure returns them: bucket starts `t` with the KV utilization and prefix hit
 * rate (0..1, null: no capacity / nothing queried) at the same index; buckets without data are absent.
 */
export type Series = {
  workerId: string;
  t: readonly number[];
  util: readonly (number | null)[];
  hitRate: readonly (number | null)[];
};
/** A worker without any bucket (what the one-worker series shows before its first sample). */
export const NO_BUCKETS: Omit<Series, "workerId"> = { t: [], util: [], hitRate: [] };
export type Window = { from: number; to: number; step: number };

/** The colour of no data in the heatmap (a pattern, distinct from 0 %). */
export const NO_DATA_COLOR = "var(--heat-none)";

/**
 * Heatmap colour for a KV utilization (0..1): low → mid → high through two CSS colour mixes, so it follows the theme.
 * null is NO_DATA_COLOR; values outside 0..1 are clamped.
 */
export function heatColor(util: number | null): string {
  if (util === null || Number.isNaN(util)) return NO_DATA_COLOR;
  const u = Math.min(1, Math.max(0, util));
  if (u <= 0.5) return `color-mix(in srgb, var(--heat-mid) ${Math.round(u * 200)}%, var(--heat-low))`;
  return `color-mix(in srgb, var(--heat-high) ${Math.round((u - 0.5) * 200)}%, var(--heat-mid))`;
}

export type HeatCell = { t: number; util: number | null; color: string; label: string };
export type HeatRow = { workerId: string; cells: HeatCell[] };

/** One row per worker, one cell per bucket of the window: utilization, its colour, and a label for the tooltip. */
export function heatmapRows(series: readonly Series[], w: Window, timeZone?: string): HeatRow[] {
  const starts = bucketStarts(w.from, w.to, w.step);
  return series.map((s) => {
    const utils = fillColumn(starts, s.t, s.util);
    return {
      workerId: s.workerId,
      cells: starts.map((t, i) => {
        const util = utils[i]!;
        return {
          t,
          util,
          color: heatColor(util),
          label: `${s.workerId} · ${formatTick(t, w.step, timeZone)} · ${util === null ? "no data" : formatPercent(util)}`,
        };
      }),
    };
  });
}

/** Axis labels for a heatmap: about `count` evenly spaced bucket starts with their index. */
export function heatmapTicks(w: Window, count = 6, timeZone?: string): { index: number; label: string }[] {
  const starts = bucketStarts(w.from, w.to, w.step);
  if (starts.length === 0) return [];
  const every = Math.max(1, Math.ceil(starts.length / count));
  return starts.flatMap((t, index) => (index % every === 0 ? [{ index, label: formatTick(t, w.step, timeZone) }] : []));
}

export type LinePoint = { t: number; hitRate: number | null; util: number | null };

/** Dense chart rows for one worker over the window, in percent; missing buckets are null (drawn as gaps). */
export function percentSeries(series: Omit<Series, "workerId">, w: Window): LinePoint[] {
  const starts = bucketStarts(w.from, w.to, w.step);
  const hit = fillColumn(starts, series.t, series.hitRate);
  const util = fillColumn(starts, series.t, series.util);
  return starts.map((t, i) => ({ t, hitRate: toPercent(hit[i]!), util: toPercent(util[i]!) }));
}

/** Small multiples: one percent series per worker, plus whether it has any hit-rate data at all. */
export function hitRateMultiples(
  series: readonly Series[],
  w: Window,
): { workerId: string; data: LinePoint[]; empty: boolean }[] {
  return series.map((s) => {
    const data = percentSeries(s, w);
    return { workerId: s.workerId, data, empty: data.every((d) => d.hitRate === null) };
  });
}

const CLASS_COLORS: Record<string, string> = {
  system_prompt: "var(--series-1)",
  tool_definitions: "var(--series-2)",
  conversation: "var(--series-3)",
  subagent_state: "var(--series-4)",
};
const OTHER_COLORS = ["var(--series-5)", "var(--series-6)"];
/** The label of blocks stored without a retention class. */
export const UNCLASSIFIED = "unclassified";

/** A stable colour per retention class: the four documented segments fixed, others by name, unclassified muted. */
export function classColor(cls: string): string {
  if (cls === UNCLASSIFIED) return "var(--muted)";
  const known = CLASS_COLORS[cls];
  if (known) return known;
  let h = 0;
  for (let i = 0; i < cls.length; i++) h = (h * 31 + cls.charCodeAt(i)) >>> 0;
  return OTHER_COLORS[h % OTHER_COLORS.length]!;
}

export type ClassRow = { t: number; retentionClass: string | null; blocks: number };
export type ClassStacks = {
  classes: { key: string; color: string }[];
  data: Record<string, number | null>[];
  anyClassified: boolean;
  empty: boolean;
};

/**
 * Stacked bars of blocks stored per bucket and retention class. Buckets with no kv.stored events are null for
 * every class; classes in the order of the documented segments, then by name, unclassified last.
 */
export function classStacks(rows: readonly ClassRow[], w: Window): ClassStacks {
  const starts = bucketStarts(w.from, w.to, w.step);
  const order = Object.keys(CLASS_COLORS);
  const rank = (c: string) =>
    c === UNCLASSIFIED ? order.length + 1 : order.includes(c) ? order.indexOf(c) : order.length;
  const keys = [...new Set(rows.map((r) => r.retentionClass ?? UNCLASSIFIED))].sort(
    (a, b) => rank(a) - rank(b) || a.localeCompare(b),
  );
  const byT = new Map<number, Record<string, number | null>>();
  for (const r of rows) {
    const k = r.retentionClass ?? UNCLASSIFIED;
    const d = byT.get(r.t) ?? Object.fromEntries(keys.map((c) => [c, 0]));
    d[k] = (d[k] ?? 0) + r.blocks;
    byT.set(r.t, d);
  }
  const data = starts.map((t) => ({ t, ...(byT.get(t) ?? Object.fromEntries(keys.map((c) => [c, null]))) }));
  return {
    classes: keys.map((key) => ({ key, color: classColor(key) })),
    data,
    anyClassified: keys.some((k) => k !== UNCLASSIFIED),
    empty: rows.length === 0,
  };
}

const REASON_COLORS: Record<string, string> = {
  capacity: "var(--series-5)",
  ttl: "var(--series-2)",
  agent_end: "var(--series-3)",
  session_end: "var(--series-4)",
  cleared: "var(--bad)",
};

/** Eviction bars: reasons with blocks, events, share of removed blocks (null when none) and a colour. */
export function evictionBars(removals: readonly { reason: string; blocks: number; events: number }[]) {
  const total = removals.reduce((s, r) => s + r.blocks, 0);
  return removals.map((r) => ({
    ...r,
    share: total > 0 ? r.blocks / total : null,
    color: REASON_COLORS[r.reason] ?? "var(--muted)",
  }));
}

export type Badge = { label: string; tone: "good" | "bad" | "warn" | "info" };

/** Badges for a worker's state at the end of the range and its joined/left marks within it. */
export function stateBadges(s: { state: "up" | "down" | "stale"; joined: boolean; left: boolean }): Badge[] {
  const tone = ({ up: "good", down: "bad", stale: "warn" } as const)[s.state];
  const out: Badge[] = [{ label: s.state, tone }];
  if (s.joined) out.push({ label: "joined", tone: "info" });
  if (s.left) out.push({ label: "left", tone: "info" });
  return out;
}
