"use client";
import { Line, LineChart, YAxis } from "recharts";
import { sparkEmpty, sparkSummary, type SparkRow } from "@/components/charts/prepare/trends";

/**
 * A tiny trend line under a KPI; gaps stay gaps. Screen readers get the low, high and last values instead, so the
 * chart itself is hidden and not focusable (recharts' accessibility layer would put a hidden svg in the tab order).
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
      <LineChart
        responsive
        data={rows}
        style={{ width: "100%", height: 36 }}
        margin={{ top: 3, right: 2, bottom: 3, left: 2 }}
        accessibilityLayer={false}
        aria-hidden
      >
        <YAxis hide domain={percent ? [0, 100] : [0, "auto"]} />
        <Line
          dataKey="v"
          stroke="var(--accent)"
          strokeWidth={1.5}
          dot={false}
          connectNulls={false}
          isAnimationActive={false}
        />
      </LineChart>
    </div>
  );
}
