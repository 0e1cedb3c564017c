"use client";
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { formatTick } from "@/components/charts/prepare/buckets";
import { policyMarkLines } from "@/components/charts/policy-marks";
import type { PlacedMark } from "@/components/charts/prepare/policy-marks";
import {
  actionStyle,
  formatMetric,
  isRatioMetric,
  metricLabel,
  replicaTicks,
  timeTicks,
  type PlannerRow,
} from "@/components/charts/prepare/planner";

const TOOLTIP_STYLE = {
  background: "var(--panel)",
  border: "1px solid var(--border)",
  color: "var(--text)",
  fontSize: 12,
};

type DotProps = { cx?: number; cy?: number; payload?: PlannerRow; index?: number };

/** A mark on every bucket with decisions, coloured by what they did; scale actions drawn larger. */
function DecisionDot({ cx, cy, payload, index }: DotProps) {
  if (cx === undefined || cy === undefined || !payload?.action) return <g key={`none-${index}`} />;
  const { color } = actionStyle(payload.action);
  const r = payload.action === "none" ? 2.5 : 5;
  return <circle key={`dot-${index}`} cx={cx} cy={cy} r={r} fill={color} stroke="var(--panel)" strokeWidth={1} />;
}

function xAxis(from: number, to: number, step: number) {
  const ticks = timeTicks({ from, to });
  const every = ticks.length > 1 ? ticks[1]! - ticks[0]! : step;
  return (
    <XAxis
      type="number"
      dataKey="t"
      domain={[from, to]}
      ticks={ticks}
      tickFormatter={(t: number) => formatTick(t, every)}
      stroke="var(--muted)"
      fontSize={11}
    />
  );
}

/** Replicas of one role over time as a step line, with every decision marked (scale-ups and -downs larger). */
export function ReplicasChart({
  rows,
  role,
  from,
  to,
  step,
  marks = [],
}: {
  rows: PlannerRow[];
  role: string;
  from: number;
  to: number;
  step: number;
  marks?: PlacedMark[];
}) {
  const ticks = replicaTicks(rows);
  return (
    <LineChart
      responsive
      data={rows}
      style={{ width: "100%", height: 170 }}
      margin={{ top: 8, right: 12, bottom: 0, left: 0 }}
      accessibilityLayer
      aria-label={`${role} replicas over time`}
    >
      <CartesianGrid stroke="var(--border)" vertical={false} />
      {xAxis(from, to, step)}
      <YAxis
        allowDecimals={false}
        domain={[0, ticks[ticks.length - 1]!]}
        ticks={ticks}
        stroke="var(--muted)"
        fontSize={11}
        width={32}
      />
      <Tooltip
        labelFormatter={(t) => formatTick(Number(t), step)}
        formatter={(v, _name, item) => {
          const p = item.payload as PlannerRow;
          return [
            `${v}${p.action ? ` · ${actionStyle(p.action).label} (${p.decisions} decision${p.decisions === 1 ? "" : "s"})` : ""}`,
            "replicas",
          ];
        }}
        contentStyle={TOOLTIP_STYLE}
      />
      <Line
        dataKey="replicas"
        name="replicas"
        type="stepAfter"
        stroke="var(--series-1)"
        strokeWidth={1.8}
        dot={DecisionDot}
        activeDot={false}
        connectNulls={false}
        isAnimationActive={false}
      />
      {policyMarkLines(marks)}
    </LineChart>
  );
}

/** The observed metric (bucket mean) against the scale-up and scale-down thresholds each decision carried. */
export function MetricChart({
  rows,
  role,
  metric,
  from,
  to,
  step,
  marks = [],
}: {
  rows: PlannerRow[];
  role: string;
  metric: string | null;
  from: number;
  to: number;
  step: number;
  marks?: PlacedMark[];
}) {
  const label = metricLabel(metric, role);
  const ratio = isRatioMetric(metric);
  return (
    <LineChart
      responsive
      data={rows}
      style={{ width: "100%", height: 190 }}
      margin={{ top: 8, right: 12, bottom: 0, left: 0 }}
      accessibilityLayer
      aria-label={`${label} of ${role} against its thresholds`}
    >
      <CartesianGrid stroke="var(--border)" vertical={false} />
      {xAxis(from, to, step)}
      <YAxis
        domain={ratio ? [0, 100] : [0, "auto"]}
        ticks={ratio ? [0, 25, 50, 75, 100] : undefined}
        tickFormatter={(v: number) => (ratio ? `${v}%` : String(v))}
        stroke="var(--muted)"
        fontSize={11}
        width={42}
      />
      <Tooltip
        labelFormatter={(t) => formatTick(Number(t), step)}
        formatter={(v) => formatMetric(metric, typeof v === "number" ? v : null)}
        contentStyle={TOOLTIP_STYLE}
      />
      <Legend wrapperStyle={{ fontSize: 12 }} />
      <Line
        dataKey="up"
        name="scale-up threshold"
        type="stepAfter"
        stroke="var(--bad)"
        strokeDasharray="5 4"
        strokeWidth={1.4}
        dot={false}
        connectNulls={false}
        isAnimationActive={false}
      />
      <Line
        dataKey="down"
        name="scale-down threshold"
        type="stepAfter"
        stroke="var(--good)"
        strokeDasharray="5 4"
        strokeWidth={1.4}
        dot={false}
        connectNulls={false}
        isAnimationActive={false}
      />
      <Line
        dataKey="observed"
        name={`${label} (observed)`}
        stroke="var(--series-2)"
        strokeWidth={1.8}
        dot={DecisionDot}
        activeDot={false}
        connectNulls={false}
        isAnimationActive={false}
      />
      {policyMarkLines(marks, { labels: false })}
    </LineChart>
  );
}
