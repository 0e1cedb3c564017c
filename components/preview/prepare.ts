import { formatCount, formatDecimal, formatMs, formatPercent } from "@/components/format";
import type { PreviewResult, RunSummary } from "@/server/preview/types";

// The preview result as rows for the review screen: windows to choose, headline figures baseline → candidate with the
// change in words, and the breakdowns (causes, evictions, workers). Pure: the components only render these.

export const PREVIEW_SPANS = [
  { id: "15m", label: "Last 15 minutes", ms: 15 * 60_000 },
  { id: "1h", label: "Last hour", ms: 3_600_000 },
  { id: "6h", label: "Last 6 hours", ms: 6 * 3_600_000 },
  { id: "24h", label: "Last 24 hours", ms: 24 * 3_600_000 },
] as const;
export type SpanId = (typeof PREVIEW_SPANS)[number]["id"];

/** The window ending at the start of the current minute (so re-opening within it finds the stored result). */
export function previewWindow(span: SpanId, now: number): { from: number; to: number } {
  const ms = PREVIEW_SPANS.find((s) => s.id === span)!.ms;
  const to = Math.floor(now / 60_000) * 60_000;
  return { from: to - ms, to };
}

export type Row = { metric: string; baseline: string; candidate: string; change: string };

const points = (a: number | null, b: number | null) =>
  a === null || b === null ? "—" : `${b >= a ? "+" : "−"}${Math.abs((b - a) * 100).toFixed(1)} points`;
const relative = (a: number | null, b: number | null) =>
  a === null || b === null || a === 0 ? "—" : `${b >= a ? "+" : "−"}${Math.abs(((b - a) / a) * 100).toFixed(0)}%`;
const delta = (a: number, b: number) => (b === a ? "same" : `${b > a ? "+" : "−"}${formatCount(Math.abs(b - a))}`);

/** Hit rate and TTFT, baseline → candidate, the measured value and the baseline's error (baseline − measured). */
export function headlineRows(r: PreviewResult): (Row & { measured: string; error: string })[] {
  const sign = (v: number) => (v > 0 ? "+" : v < 0 ? "−" : "±");
  return [
    {
      metric: "Hit rate (token-weighted)",
      baseline: formatPercent(r.baseline.hit_rate),
      candidate: formatPercent(r.candidate.hit_rate),
      change: points(r.baseline.hit_rate, r.candidate.hit_rate),
      measured: formatPercent(r.measured.hit_rate),
      error:
        r.error.hit_rate_points === null
          ? "—"
          : `${sign(r.error.hit_rate_points)}${Math.abs(r.error.hit_rate_points)} points`,
    },
    {
      metric: "TTFT p50",
      baseline: formatMs(r.baseline.ttft_p50_ms),
      candidate: formatMs(r.candidate.ttft_p50_ms),
      change: relative(r.baseline.ttft_p50_ms, r.candidate.ttft_p50_ms),
      measured: formatMs(r.measured.ttft_p50_ms),
      error:
        r.error.ttft_p50_ms === null ? "—" : `${sign(r.error.ttft_p50_ms)}${formatMs(Math.abs(r.error.ttft_p50_ms))}`,
    },
    {
      metric: "TTFT p95",
      baseline: formatMs(r.baseline.ttft_p95_ms),
      candidate: formatMs(r.candidate.ttft_p95_ms),
      change: relative(r.baseline.ttft_p95_ms, r.candidate.ttft_p95_ms),
      measured: formatMs(r.measured.ttft_p95_ms),
      error:
        r.error.ttft_p95_ms === null ? "—" : `${sign(r.error.ttft_p95_ms)}${formatMs(Math.abs(r.error.ttft_p95_ms))}`,
    },
  ];
}

/** One sentence: "Hit rate 58.0% → 81.0% (+23.0 points), TTFT p95 2.1 s → 1.4 s." */
export function summarySentence(r: PreviewResult): string {
  return `Hit rate ${formatPercent(r.baseline.hit_rate)} → ${formatPercent(r.candidate.hit_rate)} (${points(
    r.baseline.hit_rate,
    r.candidate.hit_rate,
  )}), TTFT p95 ${formatMs(r.baseline.ttft_p95_ms)} → ${formatMs(r.candidate.ttft_p95_ms)}.`;
}

/** Rows for keyed counts of both runs (every key either has), largest first. */
export function countRows(a: Record<string, number>, b: Record<string, number>): Row[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys
    .map((k) => ({ k, x: a[k] ?? 0, y: b[k] ?? 0 }))
    .sort((p, q) => Math.max(q.x, q.y) - Math.max(p.x, p.y) || p.k.localeCompare(q.k))
    .map(({ k, x, y }) => ({ metric: k, baseline: formatCount(x), candidate: formatCount(y), change: delta(x, y) }));
}

const CAUSES = [
  ["cold", "Cold (new content)"],
  ["diverged", "Diverged prefix"],
  ["evicted", "Evicted"],
  ["routed_away", "Routed away"],
] as const;

/** Recomputed prompt tokens by cause. */
export function causeRows(b: RunSummary, c: RunSummary): Row[] {
  return CAUSES.map(([k, label]) => ({
    metric: label,
    baseline: formatCount(b.recomputed_by_cause[k]),
    candidate: formatCount(c.recomputed_by_cause[k]),
    change: delta(b.recomputed_by_cause[k], c.recomputed_by_cause[k]),
  }));
}

/** Per-worker mean / peak KV use of both runs (workers either run had). */
export function workerRows(b: RunSummary, c: RunSummary): Row[] {
  const ids = [...new Set([...b.workers, ...c.workers].map((w) => w.worker_id))].sort((x, y) =>
    x.localeCompare(y, "en", { numeric: true }),
  );
  const cell = (s: RunSummary, id: string) => {
    const w = s.workers.find((x) => x.worker_id === id);
    return w ? `${formatPercent(w.kv_mean, 0)} mean · ${formatPercent(w.kv_max, 0)} peak` : "—";
  };
  return ids.map((id) => ({ metric: id, baseline: cell(b, id), candidate: cell(c, id), change: "" }));
}

/** Planner figures of an autoscaling preview: GPU-hours and scaling actions. */
export function plannerRows(b: RunSummary, c: RunSummary): Row[] {
  const count = (s: RunSummary, a: string) => s.planner.decisions.filter((d) => d.action === a).length;
  return [
    {
      metric: "GPU-hours",
      baseline: formatDecimal(b.planner.gpu_hours, 2),
      candidate: formatDecimal(c.planner.gpu_hours, 2),
      change: relative(b.planner.gpu_hours, c.planner.gpu_hours),
    },
    ...(["scale_up", "scale_down"] as const).map((a) => ({
      metric: a === "scale_up" ? "Scale-ups" : "Scale-downs",
      baseline: formatCount(count(b, a)),
      candidate: formatCount(count(c, a)),
      change: delta(count(b, a), count(c, a)),
    })),
  ];
}
