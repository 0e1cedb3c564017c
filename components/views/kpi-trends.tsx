"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { formatMs, formatPercentPoints, formatRate } from "@/components/format";
import { sparkRows, type TrendKey } from "@/components/charts/prepare/trends";
import { Sparkline } from "@/components/charts/sparkline";
import { useTRPC } from "@/components/providers/trpc-provider";
import type { RangeSpec } from "@/lib/time-range";
import type { Scope } from "@/lib/scope";
import "@/components/ui/trends.css";

const SPECS: Record<TrendKey, { label: string; format: (v: number) => string; percent?: boolean }> = {
  requestsPerSecond: { label: "Requests / s", format: (v) => formatRate(v) },
  ttftP50Ms: { label: "TTFT p50", format: (v) => formatMs(v) },
  itlP95Ms: { label: "ITL p95", format: (v) => formatMs(v) },
  prefixHitRate: { label: "Prefix hit rate", format: (v) => formatPercentPoints(v), percent: true },
  kvUtilization: { label: "KV utilization", format: (v) => formatPercentPoints(v), percent: true },
};

/** The overview's KPI trends over the range (refreshed with the KPIs); returns a sparkline per KPI, or nothing while loading. */
export function useKpiTrends(
  range: RangeSpec,
  refreshMs: number | false,
  scope: Scope = {},
): (key: TrendKey) => ReactNode {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.overview.trends.queryOptions({ ...range, ...scope }),
    refetchInterval: refreshMs,
    placeholderData: keepPreviousData,
  });
  const d = q.data;
  return (key) => (d ? <Sparkline rows={sparkRows(d.points, key, d)} {...SPECS[key]} /> : undefined);
}
