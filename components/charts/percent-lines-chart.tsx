"use client";
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { formatTick } from "@/components/charts/prepare/buckets";
import { policyMarkLines } from "@/components/charts/policy-marks";
import type { PlacedMark } from "@/components/charts/prepare/policy-marks";
import type { LinePoint } from "@/components/charts/prepare/workers";
import { formatPercentPoints } from "@/components/format";

export type LineSpec = { key: "hitRate" | "util"; name: string; color: string };

/** Percent lines over time (0–100 %); null points are gaps, never joined across. */
export function PercentLinesChart({
  data,
  lines,
  step,
  height = 220,
  label,
  marks = [],
}: {
  data: LinePoint[];
  lines: LineSpec[];
  step: number;
  height?: number;
  label: string;
  marks?: PlacedMark[];
}) {
  return (
    <LineChart
      responsive
      data={data}
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
        domain={[0, 100]}
        ticks={[0, 25, 50, 75, 100]}
        tickFormatter={(v: number) => `${v}%`}
        stroke="var(--muted)"
        fontSize={11}
        width={42}
      />
      <Tooltip
        labelFormatter={(t) => formatTick(Number(t), step)}
        formatter={(v) => formatPercentPoints(typeof v === "number" ? v : null)}
        contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)", color: "var(--text)" }}
      />
      {lines.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />}
      {lines.map((l) => (
        <Line
          key={l.key}
          dataKey={l.key}
          name={l.name}
          stroke={l.color}
          strokeWidth={1.6}
          dot={false}
          connectNulls={false}
          isAnimationActive={false}
          type="linear"
        />
      ))}
      {policyMarkLines(marks)}
    </LineChart>
  );
}
