// Chart data for the planner view: replicas, the observed metric against its thresholds, decision marks. Pure.
import type { RoleSeries } from "@/server/analysis/planner";
import { formatPercentPoints, NO_DATA } from "@/components/format";
import { quantile } from "@/lib/quantile";

export type Window = { from: number; to: number; step: number };
export type Action = "scale_up" | "scale_down" | "mixed" | "none";

export type PlannerRow = {
  t: number;
  replicas: number | null;
  /** Observed metric (bucket mean), its peak, and the thresholds, in display units (percent for KV utilization). */
  observed: number | null;
  peak: number | null;
  up: number | null;
  down: number | null;
  /** The decisions in the bucket and what they did; null on rows that are not decisions (range start, end, gaps). */
  action: Action | null;
  decisions: number;
};

/** True when the metric is a 0..1 ratio shown in percent. */
export function isRatioMetric(metric: string | null): boolean {
  return metric === "decode_kv_utilization";
}

/** A metric value in display units: percent (rounded to 0.1) for ratios, as observed otherwise. */
export function toDisplay(metric: string | null, v: number | null): number | null {
  if (v === null) return null;
  return isRatioMetric(metric) ? Math.round(v * 1000) / 10 : v;
}

/** A metric value for people, from display units: "95.0%" or "0.60"; null is the no-data dash. */
export function formatMetric(metric: string | null, display: number | null | undefined): string {
  if (display === null || display === undefined) return NO_DATA;
  return isRatioMetric(metric) ? formatPercentPoints(display) : display.toFixed(2);
}

/** A metric value for people, from raw units (a 0..1 ratio or the queue figure). */
export function formatRawMetric(metric: string | null, raw: number): string {
  return formatMetric(metric, toDisplay(metric, raw));
}

/** The metric's name as a chart title ("Prefill queue", "Decode KV utilization"; aggregated workers: "KV utilization"). */
export function metricLabel(metric: string | null, role: string): string {
  if (metric === "prefill_queue") return "Prefill queue";
  if (metric === "decode_kv_utilization") return role === "decode" ? "Decode KV utilization" : "KV utilization";
  return metric ?? "Observed metric";
}

/** What a bucket's decisions did. */
export function bucketAction(ups: number, downs: number): Action {
  if (ups > 0 && downs > 0) return "mixed";
  if (ups > 0) return "scale_up";
  if (downs > 0) return "scale_down";
  return "none";
}

const ACTION_STYLE: Record<Action, { label: string; color: string; tone: "info" | "warn" | "bad" | "good" | null }> = {
  scale_up: { label: "scale up", color: "var(--accent)", tone: "info" },
  scale_down: { label: "scale down", color: "var(--warn)", tone: "warn" },
  mixed: { label: "up and down", color: "var(--bad)", tone: "bad" },
  none: { label: "no change", color: "var(--muted)", tone: null },
};

/** Label, marker colour and badge tone of an action. */
export function actionStyle(action: string): {
  label: string;
  color: string;
  tone: "info" | "warn" | "bad" | "good" | null;
} {
  return ACTION_STYLE[action as Action] ?? { label: action, color: "var(--muted)", tone: null };
}

/**
 * Rows for one role's charts over the window: the state in force at the range start, one row per bucket with
 * decisions, and a carried-forward end row while the planner is still deciding. A silence longer than three
 * typical intervals (and three buckets) becomes an all-null row, so lines break there instead of bridging it.
 */
export function plannerRows(s: RoleSeries, w: Window): PlannerRow[] {
  const m = s.metric;
  const fromBucket = (b: RoleSeries["buckets"][number]): PlannerRow => ({
    t: b.t,
    replicas: b.replicas,
    observed: toDisplay(m, b.observed),
    peak: toDisplay(m, b.peak),
    up: toDisplay(m, b.up),
    down: toDisplay(m, b.down),
    action: bucketAction(b.ups, b.downs),
    decisions: b.decisions,
  });
  const gap = (t: number): PlannerRow => ({
    t,
    replicas: null,
    observed: null,
    peak: null,
    up: null,
    down: null,
    action: null,
    decisions: 0,
  });
  const ts = s.buckets.map((b) => b.t);
  const spacing = quantile(
    ts.slice(1).map((t, i) => t - ts[i]!),
    0.5,
  );
  const maxGap = Math.max(3 * (spacing ?? 0), 3 * w.step);
  const rows: PlannerRow[] = [];
  if (s.start)
    rows.push({
      t: w.from,
      replicas: s.start.replicas,
      observed: null,
      peak: null,
      up: toDisplay(m, s.start.up),
      down: toDisplay(m, s.start.down),
      action: null,
      decisions: 0,
    });
  let prev: number | null = null;
  for (const b of s.buckets) {
    if (prev !== null && b.t - prev > maxGap) rows.push(gap(prev + w.step));
    rows.push(fromBucket(b));
    prev = b.t;
  }
  const last = rows[rows.length - 1];
  if (last && last.t < w.to && w.to - last.t <= maxGap)
    rows.push({ ...gap(w.to), replicas: last.replicas, up: last.up, down: last.down });
  return rows;
}

/** The replicas after the role's latest decision (or the one in force at the range start); null when unknown. */
export function currentReplicas(s: RoleSeries): number | null {
  return s.buckets.length ? s.buckets[s.buckets.length - 1]!.replicas : (s.start?.replicas ?? null);
}

const NICE_MS = [1, 2, 5, 10, 15, 30]
  .map((s) => s * 1_000)
  .concat(
    [1, 2, 5, 10, 15, 30].map((m) => m * 60_000),
    [1, 2, 3, 6, 12, 24].map((h) => h * 3_600_000),
  );

/** Time-axis ticks at round intervals (10 s … 1 d), at most about `count` of them, inside [from, to]. */
export function timeTicks(w: { from: number; to: number }, count = 6): number[] {
  const span = w.to - w.from;
  if (!(span > 0)) return [];
  const every = NICE_MS.find((n) => span / n <= count) ?? Math.ceil(span / count / 86_400_000) * 86_400_000;
  const out: number[] = [];
  for (let t = Math.ceil(w.from / every) * every; t <= w.to; t += every) out.push(t);
  return out;
}

/** Integer y-axis ticks from 0 to just above the most replicas, at most six of them. */
export function replicaTicks(rows: readonly { replicas: number | null }[]): number[] {
  const max = rows.reduce((m, r) => Math.max(m, r.replicas ?? 0), 0);
  const top = Math.max(2, max + 1);
  const every = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].find((k) => top / k <= 5) ?? Math.ceil(top / 5);
  const out: number[] = [];
  for (let t = 0; t < top + every; t += every) out.push(t);
  return out;
}
