"use client";
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { formatTick } from "@/components/charts/prepare/buckets";
import { policyMarkLines } from "@/components/charts/policy-marks";
import type { PlacedMark } from "@/components/charts/prepare/policy-marks";
import type { LossRow } from "@/components/charts/prepare/routing";
import { formatPercentPoints } from "@/components/format";

const TOOLTIP_STYLE = { background: "var(--panel)", border: "1px solid var(--border)", color: "var(--text)" };

/** Routing loss and the overall recomputed share over time, in percent; gaps are not bridged. */
export function RoutingLossChart({
  data,
  step,
  unit,
  marks = [],
}: {
  data: LossRow[];
  step: number;
  unit: "tokens" | "blocks";
  marks?: PlacedMark[];
}) {
  return (
    <LineChart
      responsive
      data={data}
      style={{ width: "100%", height: 220 }}
      margin={{ top: 6, right: 12, bottom: 0, left: 0 }}
      accessibilityLayer
      aria-label="Routing loss and recomputed share over time"
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
        domain={[0, (max: number) => Math.min(100, Math.max(5, Math.ceil(max / 5) * 5))]}
        tickFormatter={(v: number) => `${v}%`}
        stroke="var(--muted)"
        fontSize={11}
        width={42}
        allowDataOverflow
      />
      <Tooltip
        labelFormatter={(t) => formatTick(Number(t), step)}
        formatter={(v) => formatPercentPoints(typeof v === "number" ? v : null)}
        contentStyle={TOOLTIP_STYLE}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} />
      <Line
        dataKey="recomputed"
        name="recomputed (all causes)"
        stroke="var(--series-4)"
        strokeWidth={1.6}
        dot={false}
        connectNulls={false}
        isAnimationActive={false}
      />
      <Line
        dataKey="loss"
        name={`routing loss (${unit})`}
        stroke="var(--series-5)"
        strokeWidth={1.8}
        dot={false}
        connectNulls={false}
        isAnimationActive={false}
      />
      {policyMarkLines(marks)}
    </LineChart>
  );
}
