"use client";
import {
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ReferenceDot,
  ReferenceLine,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { ChartRow } from "@/components/capacity/prepare";

/**
 * Hit rate (%) against KV per worker (x in blocks, ticks in GB): each worker its own LRU cache, one shared cache of the
 * same KV in all, and the replayed points; today's capacity, the knee and the target marked.
 */
export function CapacityChart({
  rows,
  gbPerBlock,
  today,
  knee,
  target,
}: {
  rows: ChartRow[];
  gbPerBlock: number;
  today: number | null;
  knee: { blocks: number; hitRate: number } | null;
  target: number | null;
}) {
  const gb = (blocks: number) => {
    const v = blocks * gbPerBlock;
    return `${v >= 100 ? Math.round(v) : v.toFixed(v >= 10 ? 0 : 1)} GB`;
  };
  const max = rows.at(-1)?.blocks ?? 1;
  return (
    <ComposedChart
      responsive
      data={rows}
      style={{ width: "100%", height: 320 }}
      margin={{ top: 10, right: 16, bottom: 4, left: 0 }}
      accessibilityLayer
      aria-label="Prefix hit rate against KV capacity per worker"
    >
      <CartesianGrid stroke="var(--border)" vertical={false} />
      <XAxis
        dataKey="blocks"
        type="number"
        domain={[0, max]}
        tickFormatter={gb}
        stroke="var(--muted)"
        fontSize={11}
        minTickGap={30}
        label={{
          value: "KV per worker",
          position: "insideBottomRight",
          offset: -2,
          fontSize: 11,
          fill: "var(--muted)",
        }}
      />
      <YAxis domain={[0, 100]} tickFormatter={(v: number) => `${v} %`} stroke="var(--muted)" fontSize={11} width={48} />
      <Tooltip
        labelFormatter={(b) => `${Number(b).toLocaleString("en-US")} blocks per worker (${gb(Number(b))})`}
        formatter={(v) => (typeof v === "number" ? `${v.toFixed(1)} %` : "—")}
        contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)", color: "var(--text)" }}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} />
      <Line
        dataKey="perWorker"
        name="LRU, each worker its own cache (recorded routing)"
        stroke="var(--accent)"
        strokeWidth={2}
        dot={false}
        connectNulls
        isAnimationActive={false}
        type="linear"
      />
      <Line
        dataKey="shared"
        name="LRU, one shared cache (perfect routing)"
        stroke="var(--muted)"
        strokeDasharray="5 3"
        strokeWidth={1.6}
        dot={false}
        connectNulls
        isAnimationActive={false}
        type="linear"
      />
      <Scatter
        dataKey="replayed"
        name="Replayed with the recorded policies"
        fill="var(--warn)"
        isAnimationActive={false}
      />
      {today !== null && (
        <ReferenceLine
          x={today}
          stroke="var(--text)"
          strokeDasharray="2 3"
          label={{ value: "today", position: "insideTopLeft", fontSize: 11, fill: "var(--text)" }}
        />
      )}
      {target !== null && (
        <ReferenceLine
          y={Math.round(target * 1000) / 10}
          stroke="var(--good)"
          strokeDasharray="4 4"
          label={{ value: "target", position: "insideBottomRight", fontSize: 11, fill: "var(--muted)" }}
        />
      )}
      {knee && (
        <ReferenceDot
          x={knee.blocks}
          y={Math.round(knee.hitRate * 1000) / 10}
          r={5}
          fill="var(--accent)"
          stroke="var(--panel)"
          label={{ value: "knee", position: "top", fontSize: 11, fill: "var(--text)" }}
        />
      )}
    </ComposedChart>
  );
}
