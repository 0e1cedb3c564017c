"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { TierLinesChart } from "@/components/charts/tier-lines-chart";
import { formatCount, formatPercent } from "@/components/format";
import { TIER_LABEL, tierBlockChart, tierHitChart, tierRateChart } from "@/components/charts/prepare/tiers";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LoadError } from "@/components/ui/load-error";
import type { RangeInput } from "@/server/routers/range";

const blocks = (v: number) => formatCount(Math.round(v));
const perSecond = (v: number) => (v < 10 ? v.toFixed(2) : String(Math.round(v)));
const pct = (v: number) => `${Math.round(v)}%`;

/**
 * A worker's KV storage tiers: blocks held per tier, offload/onboard rates and hit rate per tier, from tiered kv
 * events, requests that split their cached tokens by tier, and KVBM scrapes. Shown only when a tier below GPU memory
 * or KVBM has data for this worker.
 */
export function WorkerTiersSection({
  id,
  range,
  refetchInterval,
}: {
  id: string;
  range: RangeInput;
  refetchInterval: number | false;
}) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.tiers.worker.queryOptions({ id, range }),
    refetchInterval,
    placeholderData: keepPreviousData,
  });
  const v = q.data;
  if (q.isError)
    return (
      <LoadError
        what="the storage tiers"
        message={q.error.message}
        stale={Boolean(v)}
        onRetry={() => void q.refetch()}
      />
    );
  if (!v || !(v.hasKvbm || v.tiers.some((t) => t !== "device"))) return null;
  const blockChart = tierBlockChart(v.points, v.tiers);
  const rateChart = tierRateChart(v.points, v.hasKvbm);
  const hitChart = tierHitChart(v.points, v.tiers, v.hasKvbm);
  const cached = v.totals.cached;
  const cachedAll = cached.device + cached.host + cached.disk + cached.shared;
  return (
    <section className="section" aria-labelledby="tiers-title" data-testid="worker-tiers">
      <h2 id="tiers-title">Storage tiers</h2>
      <p className="sub" data-testid="worker-tiers-summary">
        {v.tiers.map((t) => TIER_LABEL[t]).join(", ") || "KVBM only"}
        {v.tiers.length > 0 &&
          ` · ${formatCount(v.totals.offloaded)} blocks offloaded, ${formatCount(v.totals.onboarded)} onboarded`}
        {v.hasKvbm &&
          ` · KVBM: ${formatCount(v.totals.kvbmOffloaded)} blocks offloaded, ${formatCount(v.totals.kvbmOnboarded)} onboarded`}
        {cachedAll > 0 &&
          ` · cached tokens ${(["device", "host", "disk", "shared"] as const)
            .filter((t) => cached[t] > 0)
            .map((t) => `${t} ${formatPercent(cached[t] / cachedAll)}`)
            .join(", ")}`}
        {v.totals.prefetched > 0 && ` · ${formatCount(v.totals.prefetched)} tokens prefetched`}
      </p>
      <div className="two-col">
        <section className="chart-card" aria-labelledby="tier-blocks-title">
          <h3 id="tier-blocks-title">Blocks per tier</h3>
          {blockChart.lines.length ? (
            <TierLinesChart chart={blockChart} step={v.step} label={`Blocks per tier on ${id}`} format={blocks} />
          ) : (
            <div className="chart-empty">No tiered kv events in this range.</div>
          )}
        </section>
        <section className="chart-card" aria-labelledby="tier-rates-title">
          <h3 id="tier-rates-title">Offload and onboard rate (blocks/s)</h3>
          {rateChart.lines.length ? (
            <TierLinesChart
              chart={rateChart}
              step={v.step}
              label={`Offload and onboard rates of ${id}`}
              format={perSecond}
            />
          ) : (
            <div className="chart-empty">No offloads or onboards in this range.</div>
          )}
        </section>
      </div>
      <section className="chart-card section" aria-labelledby="tier-hits-title">
        <h3 id="tier-hits-title">Hit rate per tier</h3>
        {hitChart.lines.length ? (
          <TierLinesChart
            chart={hitChart}
            step={v.step}
            label={`Hit rate per tier on ${id}`}
            format={pct}
            percent
            dots
          />
        ) : (
          <div className="chart-empty">
            No requests with cached tokens by tier, and no KVBM hit rates, in this range.
          </div>
        )}
        <p className="sub">
          Share of input tokens served from each tier (requests that split their cached tokens by tier); dashed: KVBM's
          own sliding-window hit rates.
        </p>
      </section>
    </section>
  );
}
