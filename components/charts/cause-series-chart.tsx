"use client";
import { formatCompact, formatCount } from "@/components/format";
import { useQuery } from "@tanstack/react-query";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { ChartFrame } from "@/components/charts/chart-frame";
import { formatTick } from "@/components/charts/prepare/buckets";
import { CAUSE_COLOR, CAUSE_LABEL, CAUSES } from "@/components/charts/prepare/causes";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { RangeSpec } from "@/lib/time-range";

const TOOLTIP_STYLE = { background: "var(--panel)", border: "1px solid var(--border)", color: "var(--text)" };

/** Cluster-wide recomputed prompt tokens by cause per bucket (stacked bars), fetched for the page's range. */
export function CauseSeriesChart({ range }: { range: RangeSpec }) {
  const trpc = useTRPC();
  const live = "preset" in range;
  const q = useQuery({ ...trpc.sessions.causeSeries.queryOptions({ range }), refetchInterval: live ? 5_000 : false });
  const data = (q.data?.points ?? []).map((p) => ({
    t: p.t,
    cold: p.cold,
    diverged: p.diverged,
    evicted: p.evicted,
    routed_away: p.routedAway,
    unknown: p.unknown,
  }));
  const step = q.data?.step ?? 60_000;
  return (
    <ChartFrame
      title="Recomputed tokens by cause"
      note="Every uncached prompt token, attributed: cold, diverged prefix, evicted, routed away, unknown."
      loading={q.isPending}
      empty={data.length === 0}
      emptyText="No attributed requests in this range yet."
    >
      <BarChart
        responsive
        data={data}
        style={{ width: "100%", height: 220 }}
        margin={{ top: 6, right: 12, bottom: 0, left: 0 }}
        accessibilityLayer
        aria-label="Recomputed tokens by cause over time"
      >
        <CartesianGrid stroke="var(--border)" vertical={false} />
        <XAxis
          dataKey="t"
          tickFormatter={(t: number) => formatTick(t, step)}
          stroke="var(--muted)"
          fontSize={11}
          minTickGap={40}
        />
        <YAxis tickFormatter={(v: number) => formatCompact(v)} stroke="var(--muted)" fontSize={11} width={48} />
        <Tooltip
          labelFormatter={(t) => formatTick(Number(t), step)}
          formatter={(v) => (typeof v === "number" ? formatCount(v) : String(v))}
          contentStyle={TOOLTIP_STYLE}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {CAUSES.map((c) => (
          <Bar key={c} dataKey={c} name={CAUSE_LABEL[c]} stackId="c" fill={CAUSE_COLOR[c]} isAnimationActive={false} />
        ))}
      </BarChart>
    </ChartFrame>
  );
}
