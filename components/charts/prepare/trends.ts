// Sparkline data for the overview KPIs. Pure: buckets without data are null (gaps), never 0.
import type { TrendPoint } from "@/server/analysis/trends";
import { bucketStarts, fillBuckets, toPercent } from "./buckets";

export type TrendKey = Exclude<keyof TrendPoint, "t">;
export type SparkRow = { t: number; v: number | null };

const RATIOS: readonly TrendKey[] = ["prefixHitRate", "kvUtilization"];

/** One row per bucket of the window for one KPI, in display units (percent for ratios); missing buckets are null. */
export function sparkRows(
  points: readonly TrendPoint[],
  key: TrendKey,
  w: { from: number; to: number; step: number },
): SparkRow[] {
  const starts = bucketStarts(w.from, w.to, w.step);
  const values = fillBuckets(starts, points, (p) => p[key]);
  const ratio = RATIOS.includes(key);
  return starts.map((t, i) => ({ t, v: ratio ? toPercent(values[i]!) : values[i]! }));
}

/** "low 1.2, high 3.4, last 2.0" for a screen reader (values in display units); "no data" when every bucket is a gap. */
export function sparkSummary(rows: readonly SparkRow[], format: (v: number) => string): string {
  const vs = rows.map((r) => r.v).filter((v): v is number => v !== null);
  if (vs.length === 0) return "no data in this range";
  const last = [...rows].reverse().find((r) => r.v !== null)!.v!;
  return `low ${format(Math.min(...vs))}, high ${format(Math.max(...vs))}, last ${format(last)}`;
}

/** Whether a sparkline has anything to draw. */
export function sparkEmpty(rows: readonly SparkRow[]): boolean {
  return rows.every((r) => r.v === null);
}
