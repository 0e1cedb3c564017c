"use client";
import { Area, AreaChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { formatTick } from "@/components/charts/prepare/buckets";
import { policyMarkLines } from "@/components/charts/policy-marks";
import type { PlacedMark } from "@/components/charts/prepare/policy-marks";
import type { ShareStacks } from "@/components/charts/prepare/routing";
import { formatPercentPoints } from "@/components/format";

const TOOLTIP_STYLE = { background: "var(--panel)", border: "1px solid var(--border)", color: "var(--text)" };

/** Each worker's share of the routing decisions per bucket, stacked to 100 %; buckets without decisions are gaps. */
export function RoutingShareChart({
  stacks,
  step,
  marks = [],
}: {
  stacks: ShareStacks;
  step: number;
  marks?: PlacedMark[];
}) {
  return (
    <AreaChart
      responsive
      data={stacks.data}
      style={{ width: "100%", height: 220 }}
      margin={{ top: 6, right: 12, bottom: 0, left: 0 }}
      accessibilityLayer
      aria-label="Routing share per worker over time"
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
        contentStyle={TOOLTIP_STYLE}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} />
      {stacks.keys.map((k) => (
        <Area
          key={k.key}
          dataKey={k.key}
          name={k.key}
          stackId="share"
          type="linear"
          stroke={k.color}
          fill={k.color}
          fillOpacity={0.55}
          connectNulls={false}
          isAnimationActive={false}
        />
      ))}
      {policyMarkLines(marks, { labels: false })}
    </AreaChart>
  );
}
