"use client";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { formatTick } from "@/components/charts/prepare/buckets";
import { formatCount } from "@/components/format";
import type { ClassStacks } from "@/components/charts/prepare/workers";

/** Stacked bars: blocks stored per bucket, one colour per retention class. */
export function ClassStacksChart({ stacks, step }: { stacks: ClassStacks; step: number }) {
  return (
    <BarChart
      responsive
      data={stacks.data}
      style={{ width: "100%", height: 220 }}
      margin={{ top: 6, right: 12, bottom: 0, left: 0 }}
      accessibilityLayer
      aria-label="Blocks stored by retention class over time"
    >
      <CartesianGrid stroke="var(--border)" vertical={false} />
      <XAxis
        dataKey="t"
        tickFormatter={(t: number) => formatTick(t, step)}
        stroke="var(--muted)"
        fontSize={11}
        minTickGap={40}
      />
      <YAxis stroke="var(--muted)" fontSize={11} width={48} allowDecimals={false} />
      <Tooltip
        labelFormatter={(t) => formatTick(Number(t), step)}
        formatter={(v) => formatCount(typeof v === "number" ? v : null)}
        contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)", color: "var(--text)" }}
        cursor={{ fill: "var(--code-bg)" }}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
      {stacks.classes.map((c) => (
        <Bar key={c.key} dataKey={c.key} name={c.key} stackId="blocks" fill={c.color} isAnimationActive={false} />
      ))}
    </BarChart>
  );
}
