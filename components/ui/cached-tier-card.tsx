"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { formatPercent } from "@/components/format";
import { splitParts } from "@/components/charts/prepare/tiers";
import { useTRPC } from "@/components/providers/trpc-provider";
import { KpiCard } from "@/components/ui/kpi-card";
import type { RangeInput } from "@/server/routers/range";

/**
 * Cached tokens split by storage tier (share served from below GPU memory, and from where), over the range. Renders
 * nothing while only the device tier has served cached tokens, so views of clusters without tiers stay unchanged.
 */
export function CachedTierCard({ range, refetchInterval }: { range: RangeInput; refetchInterval: number | false }) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.tiers.cluster.queryOptions({ range }),
    refetchInterval,
    placeholderData: keepPreviousData,
  });
  const split = q.data?.split;
  if (!split) return null;
  const parts = splitParts(split);
  const lower = parts.filter((p) => p.key !== "device" && p.key !== "prefetched").reduce((a, p) => a + p.share, 0);
  return (
    <KpiCard
      id="kpi-cached-tiers"
      label="Cached tokens from lower tiers"
      value={formatPercent(lower)}
      note={parts.map((p) => `${p.key} ${formatPercent(p.share)}`).join(" · ")}
    />
  );
}
