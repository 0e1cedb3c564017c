"use client";
import { PolicyMarksNote, usePolicyMarks } from "@/components/charts/policy-marks";
import { snapToWindow } from "@/components/charts/prepare/policy-marks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ChartFrame } from "@/components/charts/chart-frame";
import { formatCount, formatPercent, formatRange } from "@/components/format";
import { lossNote, lossRows, lossVerdict, shareStacks } from "@/components/charts/prepare/routing";
import { RoutingLossChart } from "@/components/charts/routing-loss-chart";
import { RoutingShareChart } from "@/components/charts/routing-share-chart";
import { useTRPC } from "@/components/providers/trpc-provider";
import { DecisionsTable } from "@/components/tables/decisions-table";
import { KpiCard } from "@/components/ui/kpi-card";
import { CachedTierCard } from "@/components/ui/cached-tier-card";
import { LoadError } from "@/components/ui/load-error";
import { Pager } from "@/components/ui/pager";
import { TimeRangePicker } from "@/components/ui/time-range-picker";
import { useCursorPages } from "@/components/ui/use-cursor-pages";
import { useRange } from "@/components/ui/use-range";
import { SessionFindings } from "@/components/ui/session-findings";
import { rangeQuery } from "@/lib/time-range";
import { ScopePicker } from "@/components/ui/scope-picker";
import { useScope } from "@/components/ui/use-scope";
import { describeScope, scopeQuery } from "@/lib/scope";
import "@/components/ui/cluster-views.css";
import "@/components/ui/decisions.css";

const REFRESH_MS = 2_000;
const PAGE_SIZE = 25;

/** /routing: routing loss against the overall recomputed share, routing share per worker, and the decisions with why each winner won. */
export function RoutingView() {
  const [range, setRange] = useRange();
  const [scope, setScope, scopeProblem] = useScope();
  const trpc = useTRPC();
  const live = "preset" in range;
  const [lossOnly, setLossOnly] = useState(false);
  const pages = useCursorPages<{ ts: number; id: string }>(`${rangeQuery(range)}|${scopeQuery(scope)}|${lossOnly}`);
  const series = useQuery({
    ...trpc.routing.series.queryOptions({ range, ...scope }),
    refetchInterval: live ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const list = useQuery({
    ...trpc.routing.list.queryOptions({ range, ...scope, cursor: pages.cursor, limit: PAGE_SIZE, lossOnly }),
    refetchInterval: live && pages.page === 1 ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const s = series.data;
  const w = s && { from: s.from, to: s.to, step: s.step };
  const policyMarks = usePolicyMarks(range);
  const placed = w ? snapToWindow(policyMarks, w) : [];
  const loss = s?.loss.total;
  const verdict = s ? lossVerdict(loss?.share ?? null, s.recomputed.share) : null;

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Routing</h1>
          <div className="sub">
            {live ? <span className="live">Live · refreshes every 2 s</span> : s && formatRange(s.from, s.to)}
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

      {series.isError && (
        <LoadError
          what="routing figures"
          message={series.error.message}
          stale={Boolean(s)}
          onRetry={() => void series.refetch()}
        />
      )}
      {!(series.isError && !s) && (
        <div className="kpis">
          <KpiCard
            id="kpi-decisions"
            label="Routing decisions"
            value={formatCount(s ? s.loss.decisions : null)}
            loading={series.isPending}
          />
          <KpiCard
            id="kpi-routing-loss"
            label="Routing loss"
            value={formatPercent(loss?.share ?? null)}
            note={(s && lossNote(s.loss)) ?? undefined}
            loading={series.isPending}
          />
          <KpiCard
            id="kpi-recomputed"
            label="Recomputed (all causes)"
            value={formatPercent(s?.recomputed.share ?? null)}
            note={
              s && s.recomputed.inputTokens > 0
                ? `1 − cached / input over ${formatCount(s.recomputed.inputTokens)} input tokens`
                : undefined
            }
            loading={series.isPending}
          />
          <CachedTierCard range={range} refetchInterval={live ? REFRESH_MS : false} />
        </div>
      )}
      {verdict && (
        <p className="verdict" data-testid="loss-verdict">
          {verdict}
        </p>
      )}

      <div className="two-col section">
        <ChartFrame
          title="Routing loss vs. recomputed"
          note="Routing loss: prompt recomputed although another candidate held more of the prefix. Recomputed: every uncached prompt token."
          loading={series.isPending}
          empty={!s || (s.loss.points.length === 0 && s.recomputed.points.length === 0)}
          emptyText="No routing decisions or requests in this range."
        >
          {s && w && (
            <RoutingLossChart
              data={lossRows(s.loss.points, s.recomputed.points, w)}
              step={s.step}
              unit={s.loss.unit}
              marks={placed}
            />
          )}
          {s && <PolicyMarksNote marks={policyMarks} step={s.step} />}
        </ChartFrame>
        <ChartFrame
          title="Routing share per worker"
          note="Share of each bucket's decisions each worker won."
          loading={series.isPending}
          empty={!s || s.share.length === 0}
          emptyText="No routing decisions in this range."
        >
          {s && w && <RoutingShareChart stacks={shareStacks(s.share, w)} step={s.step} marks={placed} />}
        </ChartFrame>
      </div>

      <SessionFindings range={range} scope={scope} />
      <section className="section" aria-labelledby="decisions-heading">
        <div className="section-head">
          <h2 id="decisions-heading">Decisions</h2>
          <label className="check">
            <input type="checkbox" checked={lossOnly} onChange={(e) => setLossOnly(e.target.checked)} /> Only decisions
            that lost prefix to routing
          </label>
        </div>
        {list.isError && (
          <LoadError
            what="decisions"
            message={list.error.message}
            stale={Boolean(list.data)}
            onRetry={() => void list.refetch()}
          />
        )}
        {list.isPending && (
          <div className="chart-skeleton skeleton" role="progressbar" aria-busy="true" aria-label="Loading decisions" />
        )}
        {list.data && list.data.items.length === 0 && (
          <p className="chart-empty" role="status">
            {lossOnly ? "No decision in this range lost prefix to routing." : "No routing decisions in this range."}
          </p>
        )}
        {list.data && list.data.items.length > 0 && <DecisionsTable items={list.data.items} now={list.data.to} />}
        <Pager
          label="Decisions"
          page={pages.page}
          hasOlder={Boolean(list.data?.nextCursor)}
          onNewer={pages.newer}
          onOlder={() => list.data?.nextCursor && pages.older(list.data.nextCursor)}
        />
      </section>
    </>
  );
}
