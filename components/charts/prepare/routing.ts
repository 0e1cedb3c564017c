// Chart data for the routing view: loss lines, per-worker share stacks, colours, the loss verdict. Pure.
import { bucketStarts, fillBuckets, toPercent } from "./buckets";
import { formatCount, formatDecimal, formatPercent } from "@/components/format";

export type Window = { from: number; to: number; step: number };
type SharePoint = { t: number; share: number | null };

/** The colours of up to six workers by rank, then the rest as "other". */
export const WORKER_COLORS = [
  "var(--series-1)",
  "var(--series-2)",
  "var(--series-3)",
  "var(--series-4)",
  "var(--series-5)",
  "var(--series-6)",
];
/** The key of the workers beyond the top ones. */
export const OTHER = "other";

export type LossRow = { t: number; loss: number | null; recomputed: number | null };

/** Dense rows for the loss chart in percent: routing loss and the overall recomputed share; buckets without data are null. */
export function lossRows(loss: readonly SharePoint[], recomputed: readonly SharePoint[], w: Window): LossRow[] {
  const starts = bucketStarts(w.from, w.to, w.step);
  const l = fillBuckets(starts, loss, (p) => p.share);
  const r = fillBuckets(starts, recomputed, (p) => p.share);
  return starts.map((t, i) => ({ t, loss: toPercent(l[i]!), recomputed: toPercent(r[i]!) }));
}

export type ShareStacks = {
  keys: { key: string; color: string }[];
  data: Record<string, number | null>[];
  empty: boolean;
};

/**
 * Stacked shares (percent of the bucket's decisions) per worker: the `top` workers with most decisions in the
 * range by name, the rest summed as "other". A bucket without decisions is null for every worker (a gap).
 */
export function shareStacks(
  rows: readonly { t: number; workerId: string; decisions: number }[],
  w: Window,
  top = WORKER_COLORS.length,
): ShareStacks {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.workerId, (totals.get(r.workerId) ?? 0) + r.decisions);
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([id]) => id);
  const shown = ranked.slice(0, top).sort((a, b) => a.localeCompare(b));
  const hasOther = ranked.length > top;
  const keyOf = (id: string) => (shown.includes(id) ? id : OTHER);
  const byT = new Map<number, Record<string, number>>();
  const sums = new Map<number, number>();
  for (const r of rows) {
    const d = byT.get(r.t) ?? {};
    d[keyOf(r.workerId)] = (d[keyOf(r.workerId)] ?? 0) + r.decisions;
    byT.set(r.t, d);
    sums.set(r.t, (sums.get(r.t) ?? 0) + r.decisions);
  }
  const keys = [
    ...shown.map((key, i) => ({ key, color: WORKER_COLORS[i % WORKER_COLORS.length]! })),
    ...(hasOther ? [{ key: OTHER, color: "var(--muted)" }] : []),
  ];
  const data = bucketStarts(w.from, w.to, w.step).map((t) => {
    const d = byT.get(t);
    const total = sums.get(t) ?? 0;
    return {
      t,
      ...Object.fromEntries(
        keys.map(({ key }) => [key, d && total > 0 ? Math.round(((d[key] ?? 0) / total) * 1000) / 10 : null]),
      ),
    };
  });
  return { keys, data, empty: rows.length === 0 };
}

/**
 * One sentence telling routing loss from a cold (or evicted) workload, comparing the share of prompt lost to
 * routing with the overall recomputed share; null when either is unknown.
 */
export function lossVerdict(loss: number | null, recomputed: number | null): string | null {
  if (loss === null || recomputed === null) return null;
  if (recomputed === 0) return "Nothing was recomputed: every prompt token came from cache.";
  const part = loss / recomputed;
  const figures = `routing loss ${formatPercent(loss)} of prompt tokens vs ${formatPercent(recomputed)} recomputed overall`;
  if (part < 0.1) return `Mostly a cold or evicted workload, not routing: ${figures}.`;
  if (part >= 0.5)
    return `Routing is a large part of the misses: ${figures}. The router often chose load over a worker holding more of the prefix.`;
  return `Routing explains part of the misses: ${figures}.`;
}

/** The note under the routing-loss figure: tokens lost of prompt tokens, or why it is measured in blocks; null without decisions. */
export function lossNote(l: {
  decisions: number;
  unknownBlockSize: number;
  total: { lost: number; prompt: number; unit: "tokens" | "blocks" };
}): string | null {
  if (l.decisions === 0) return null;
  const count = formatCount;
  if (l.total.unit === "tokens") return `${count(l.total.lost)} of ${count(l.total.prompt)} prompt tokens`;
  return `${count(l.total.lost)} of ${count(l.total.prompt)} prompt blocks (block size unknown for ${count(l.unknownBlockSize)} of ${count(l.decisions)} decisions)`;
}

/** "12 blocks" or "192 tokens (12 blocks)" when the block size is known. */
export function formatLost(blocks: number, tokens: number | null): string {
  const b = `${formatCount(blocks)} ${blocks === 1 ? "block" : "blocks"}`;
  return tokens === null ? b : `${formatCount(tokens)} tokens (${b})`;
}

/** A cost as the router reported it: integers as they are, fractions to two decimals. */
export function formatCost(cost: number): string {
  return formatDecimal(cost);
}
