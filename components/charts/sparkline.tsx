"use client";
import { MiniLine } from "@/components/charts/mini-line";
import { sparkEmpty, sparkSummary, type SparkRow } from "@/components/charts/prepare/trends";

/**
 * A tiny trend line under a KPI; gaps stay gaps. Screen readers get the low, high and last values instead, so the
 * line itself is hidden from them.
 */
export function Sparkline({
  rows,
  label,
  format,
  percent,
}: {
  rows: SparkRow[];
  label: string;
  format: (v: number) => string;
  percent?: boolean;
}) {
  const summary = `${label} trend: ${sparkSummary(rows, format)}`;
  if (sparkEmpty(rows)) return <div className="spark-empty" role="img" aria-label={summary} />;
  return (
    <div className="spark" role="img" aria-label={summary}>
      <MiniLine points={rows} height={36} max={percent ? 100 : "auto"} color="var(--accent)" />
    </div>
  );
}
