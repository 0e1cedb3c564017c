"use client";
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { formatTick } from "@/components/charts/prepare/buckets";
import type { TierChart } from "@/components/charts/prepare/tiers";

/** Lines over time for the tier views; null points are gaps (`dots` marks each point, for sparse series). `format` renders ticks and tooltip values. */
export function TierLinesChart({
  chart,
  step,
  label,
  format,
  percent = false,
  dots = false,
  height = 200,
}: {
  chart: TierChart;
  step: number;
  label: string;
  format: (v: number) => string;
  percent?: boolean;
  dots?: boolean;
  height?: number;
}) {
  return (
    <LineChart
      responsive
      data={chart.rows}
      style={{ width: "100%", height }}
      margin={{ top: 6, right: 12, bottom: 0, left: 0 }}
      accessibilityLayer
      aria-label={label}
    >
      <CartesianGrid stroke="var(--border)" vertical={false} />
      <XAxis
        dataKey="t"
        tickFormatter={(t: number) => formatTick(t, step)}
        stroke="var(--muted)"
        fontSize={11}
        minTickGap={40}
      />
      <YAxis
        domain={percent ? [0, 100] : [0, "auto"]}
        tickFormatter={format}
        stroke="var(--muted)"
        fontSize={11}
        width={52}
      />
      <Tooltip
        labelFormatter={(t) => formatTick(Number(t), step)}
        formatter={(v) => (typeof v === "number" ? format(v) : "—")}
        contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)", color: "var(--text)" }}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
      {chart.lines.map((l) => (
        <Line
          key={l.key}
          dataKey={l.key}
          name={l.name}
          stroke={l.color}
          strokeDasharray={l.dashed ? "5 3" : undefined}
          strokeWidth={1.6}
          dot={dots ? { r: 2.5 } : false}
          connectNulls={false}
          isAnimationActive={false}
          type="linear"
        />
      ))}
    </LineChart>
  );
}
