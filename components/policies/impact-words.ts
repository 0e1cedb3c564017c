import { formatCount, formatMs, formatPercent, formatRange } from "@/components/format";
import type { ImpactWindows, WindowMetrics } from "@/server/analysis/impact";
import type { Prediction } from "@/server/preview/prediction";

// The impact panel's sentences: measured before → after, with the preview's prediction beside them. Pure.

const MINUTE = 60_000;
const minutes = (ms: number) => Math.floor(ms / MINUTE);
/** "40 s" within the first minute, else whole minutes. */
const measured = (ms: number) => (ms < MINUTE ? `${Math.round(ms / 1000)} s` : `${minutes(ms)}`);

/** "hit rate 58% → 81%, predicted 79%" (the prediction left out when there is none). */
export function changeWords(
  label: string,
  before: number | null,
  after: number | null,
  predicted: number | null | undefined,
  format: (v: number | null) => string,
): string {
  const measured = `${label} ${format(before)} → ${format(after)}`;
  return predicted === null || predicted === undefined ? measured : `${measured}, predicted ${format(predicted)}`;
}

const pct = (v: number | null) => formatPercent(v, 0);

/**
 * The panel's headline for one target: hit rate and TTFT p95 (and p50) before → after, predicted where known, then
 * recomputed tokens and evictions as rates, which compare across windows of unequal traffic (totals do not).
 */
export function impactSentence(before: WindowMetrics, after: WindowMetrics, prediction: Prediction | null): string {
  return [
    changeWords("hit rate", before.hitRate, after.hitRate, prediction?.hit_rate, pct),
    changeWords("TTFT p95", before.ttftP95Ms, after.ttftP95Ms, prediction?.ttft_p95_ms, formatMs),
    changeWords("TTFT p50", before.ttftP50Ms, after.ttftP50Ms, prediction?.ttft_p50_ms, formatMs),
    `recomputed tokens per 1,000 prompt tokens ${rate(before.rates.recomputedPer1kPrompt, 1)} → ${rate(after.rates.recomputedPer1kPrompt, 1)}`,
    `evicted blocks per request ${rate(before.rates.evictedBlocksPerRequest, 2)} → ${rate(after.rates.evictedBlocksPerRequest, 2)}`,
  ].join("; ");
}

/** A rate with `digits` decimals (thousands separated), or a dash for none. */
export function rate(v: number | null, digits: number): string {
  return v === null ? "—" : v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** What each side holds, and which is too thin to judge: "before: 476 requests, 1.2 M prompt tokens (too thin …)". */
export function sidesWords(
  before: WindowMetrics,
  after: WindowMetrics,
  thin: { before: string | null; after: string | null },
): string {
  const side = (name: string, m: WindowMetrics, why: string | null) =>
    `${name}: ${formatCount(m.requests)} requests, ${formatCount(m.inputTokens)} prompt tokens${why ? ` (too thin to judge: ${why})` : ""}`;
  return `${side("before", before, thin.before)}; ${side("after", after, thin.after)}`;
}

/** How much of the after-window is measured: "12 of 60 minutes measured", or why it stopped early. */
export function windowWords(w: ImpactWindows): string {
  const length = minutes(w.lengthMs);
  if (w.cut === "filling")
    return `${measured(w.measuredMs)} of ${length} minutes measured (the after-window is filling)`;
  if (w.cut === "superseded")
    return `${measured(w.measuredMs)} of ${length} minutes measured: the next version took effect then`;
  return `${length} minutes before and ${length} after`;
}

/** Where the prediction comes from, or that there is none for this content. */
export function predictionWords(prediction: Prediction | null, timeZone?: string): string {
  if (!prediction) return "No preview was run for this content.";
  return `Predicted by the preview over ${formatRange(prediction.window.from, prediction.window.to, timeZone)}.`;
}
