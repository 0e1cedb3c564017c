"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc-provider";
import {
  formatCount,
  formatDateTime,
  formatMs,
  formatMsPair,
  formatPercent,
  formatRange,
  formatRate,
  formatRoles,
  NO_DATA,
} from "@/components/format";
import { KpiCard } from "@/components/ui/kpi-card";
import { CachedTierCard } from "@/components/ui/cached-tier-card";
import { PageLinks } from "@/components/ui/page-links";
import { TimeRangePicker } from "@/components/ui/time-range-picker";
import { useRange } from "@/components/ui/use-range";
import { rangeQuery } from "@/lib/time-range";
import { FleetTable } from "./fleet-table";
import { GettingStarted } from "./getting-started";
import { SessionFindings } from "@/components/ui/session-findings";
import { useKpiTrends } from "./kpi-trends";
import { describeLag } from "@/lib/attribution-lag";
import { ScopePicker } from "@/components/ui/scope-picker";
import { useScope } from "@/components/ui/use-scope";
import { describeScope, isWholeFleet, scopeQuery } from "@/lib/scope";

const REFRESH_MS = 2_000;

/** "2 clusters and 3 models" when the rows hold more than one of either, else null. */
function mixOf(rows: readonly { cluster: string; model: string | null }[]): string | null {
  const clusters = new Set(rows.map((r) => r.cluster)).size;
  const models = new Set(rows.flatMap((r) => (r.model === null ? [] : [r.model]))).size;
  if (clusters < 2 && models < 2) return null;
  const part = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  return `${part(clusters, "cluster")} and ${part(models, "model")}`;
}

export function OverviewView() {
  const [range, setRange] = useRange();
  const [scope, setScope, scopeProblem] = useScope();
  const trpc = useTRPC();
  const live = "preset" in range;
  const q = useQuery({
    ...trpc.overview.summary.queryOptions({ ...range, ...scope }),
    refetchInterval: live ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const trend = useKpiTrends(range, live ? REFRESH_MS : false, scope);
  // The same query as the fleet table's (one request): whether the cards below mix clusters or models.
  const fleet = useQuery({
    ...trpc.overview.fleet.queryOptions(range),
    refetchInterval: live ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const whole = isWholeFleet(scope);
  const inScope = (fleet.data?.rows ?? []).filter(
    (r) => (!scope.cluster || r.cluster === scope.cluster) && (!scope.model || r.model === scope.model),
  );
  const mixed = mixOf(inScope);
  const d = q.data;
  const loading = q.isPending;

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Cluster overview</h1>
          <div className="sub">
            {live ? <span className="live">Live · refreshes every 2 s</span> : d && formatRange(d.from, d.to)}
          </div>
        </div>
        <div className="page-controls">
          <ScopePicker value={scope} onChange={setScope} />
          <TimeRangePicker value={range} onChange={setRange} />
        </div>
      </div>
      {scopeProblem && (
        <p role="alert" className="notice">
          {scopeProblem}; showing {describeScope(scope)}.
        </p>
      )}
      {d && d.hasAnyData && !whole && (
        <p role="note" className="sub" data-testid="scope-note">
          These cards, trends and findings show {describeScope(scope)}; the fleet table, tier card and recomputed tokens
          below cover all clusters.
        </p>
      )}

      {q.isError && !d && (
        <div className="notice error" role="alert">
          <h2>Could not load the overview</h2>
          <p>{q.error.message}</p>
          <button className="button" type="button" onClick={() => void q.refetch()}>
            Retry
          </button>
        </div>
      )}
      {q.isError && d && (
        <p role="status" className="sub">
          Showing the last good figures; refreshing failed: {q.error.message}
        </p>
      )}
      {d && !d.hasAnyData && <GettingStarted />}
      {d && d.droppedEvents.length > 0 && (
        <div className="notice error" role="status" data-testid="dropped-events">
          <h2>Some telemetry was lost before it reached Switchyard</h2>
          {d.droppedEvents.map((r) => (
            <p key={r.source}>
              {r.source} dropped {formatCount(r.dropped)} events while the dashboard was unreachable (its buffer was
              full; reported {formatDateTime(r.reportedAt)}). Figures for that time are incomplete.
            </p>
          ))}
        </div>
      )}
      {d && d.hasAnyData && mixed && (
        <p role="note" className="sub" data-testid="fleet-mix">
          These cards take {mixed} together; the fleet table below gives each cluster and model its own figures.
        </p>
      )}
      {d && d.hasAnyData && d.attribution && (
        <p role="status" className="sub" data-testid="attribution-lag">
          {describeLag(d.attribution)}
          {!d.attribution.caughtUp &&
            d.attribution.behindMs >= 10_000 &&
            " — miss causes of the newest turns are not in yet; they are not missing"}
        </p>
      )}
      {d && d.hasAnyData && d.requests === 0 && d.workersPresent === 0 && (
        <p role="status" className="sub">
          No telemetry in this time range. Pick a longer range, or check that your sources are still sending.
        </p>
      )}

      {!(q.isError && !d) && (
        <div className="kpis">
          <KpiCard
            id="kpi-rps"
            label="Requests / s"
            value={formatRate(d ? d.requestsPerSecond : null)}
            note={d ? `${formatCount(d.requests)} requests` : undefined}
            loading={loading}
            trend={trend("requestsPerSecond")}
          />
          <KpiCard
            id="kpi-ttft-p50"
            label="TTFT p50"
            value={formatMs(d?.ttftP50Ms ?? null)}
            loading={loading}
            trend={trend("ttftP50Ms")}
          />
          <KpiCard id="kpi-ttft-p95" label="TTFT p95" value={formatMs(d?.ttftP95Ms ?? null)} loading={loading} />
          <KpiCard
            id="kpi-itl"
            label="ITL p50 / p95"
            value={d ? formatMsPair(d.itlP50Ms, d.itlP95Ms) : NO_DATA}
            note="inter-token latency per request"
            loading={loading}
            trend={trend("itlP95Ms")}
          />
          <KpiCard
            id="kpi-preemptions"
            label="Preemptions"
            value={formatCount(d ? d.preemptions : null)}
            note="KV ran out: requests recomputed"
            loading={loading}
          />
          <KpiCard
            id="kpi-hit-rate"
            label="Prefix hit rate"
            value={formatPercent(d?.prefixHitRate ?? null)}
            note={d ? `token-weighted, ${formatCount(d.prefixQueryTokens)} tokens queried` : undefined}
            loading={loading}
            trend={trend("prefixHitRate")}
          />
          <KpiCard
            id="kpi-kv"
            label="KV utilization"
            value={formatPercent(d?.kvUtilization ?? null)}
            note="latest sample per worker"
            loading={loading}
            trend={trend("kvUtilization")}
          />
          <KpiCard
            id="kpi-sessions"
            label="Active sessions"
            value={formatCount(d ? d.activeSessions : null)}
            note="requests in the last 5 min"
            loading={loading}
          />
          <KpiCard
            id="kpi-workers"
            label="Workers"
            value={formatCount(d ? d.workersPresent : null)}
            note={d ? formatRoles(d.workersByRole) : undefined}
            loading={loading}
          />
          <CachedTierCard range={range} refetchInterval={live ? REFRESH_MS : false} />
        </div>
      )}
      {d && d.hasAnyData && <FleetTable range={range} refetchInterval={live ? REFRESH_MS : false} />}
      {d && d.hasAnyData && <PageLinks query={[rangeQuery(range), scopeQuery(scope)].filter(Boolean).join("&")} />}
      {d && d.hasAnyData && <SessionFindings range={range} scope={scope} />}
    </>
  );
}
