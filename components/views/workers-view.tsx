"use client";
import { formatRange } from "@/components/format";
import { PolicyMarksNote, usePolicyMarks } from "@/components/charts/policy-marks";
import { snapToWindow } from "@/components/charts/prepare/policy-marks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { HitRateMultiples } from "@/components/charts/hit-rate-multiples";
import { describeBuckets } from "@/components/charts/prepare/buckets";
import { KvHeatmap } from "@/components/charts/kv-heatmap";
import { useTRPC } from "@/components/providers/trpc-provider";
import { WorkersTable } from "@/components/tables/workers-table";
import { LoadError } from "@/components/ui/load-error";
import { TimeRangePicker } from "@/components/ui/time-range-picker";
import { useRange } from "@/components/ui/use-range";
import { ScopePicker } from "@/components/ui/scope-picker";
import { useScope } from "@/components/ui/use-scope";
import { describeScope, isWholeFleet } from "@/lib/scope";
import { rangeQuery } from "@/lib/time-range";
import "@/components/ui/cluster-views.css";

const REFRESH_MS = 2_000;

/** The workers page: a sortable table, per-worker hit-rate small multiples and a worker × time KV heatmap. */
export function WorkersView() {
  const [range, setRange] = useRange();
  const [scope, setScope, scopeProblem] = useScope();
  const trpc = useTRPC();
  const live = "preset" in range;
  const refresh = { refetchInterval: live ? REFRESH_MS : (false as const), placeholderData: keepPreviousData };
  const list = useQuery({ ...trpc.workers.list.queryOptions({ ...range, ...scope }), ...refresh });
  const series = useQuery({ ...trpc.workers.series.queryOptions({ range, ...scope }), ...refresh });
  const q = rangeQuery(range);
  const rows = list.data?.workers;
  const rates = new Map((rows ?? []).map((r) => [r.workerId, r.hitRate]));
  const marks = new Map((rows ?? []).map((r) => [r.workerId, { joined: r.joined, left: r.left }]));
  const s = series.data;
  const window = s ? { from: s.from, to: s.to, step: s.step } : null;
  const policyMarks = usePolicyMarks(range);
  const placed = window ? snapToWindow(policyMarks, window) : [];

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Workers</h1>
          <div className="sub">
            {live ? (
              <span className="live">Live · refreshes every 2 s</span>
            ) : (
              list.data && formatRange(list.data.from, list.data.to)
            )}
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

      {list.isError && (
        <LoadError
          what="the workers"
          message={list.error.message}
          stale={Boolean(rows)}
          onRetry={() => void list.refetch()}
        />
      )}
      {list.isPending && (
        <div
          className="table-wrap chart-skeleton skeleton"
          role="progressbar"
          aria-busy="true"
          aria-label="Loading workers"
        />
      )}
      {rows && rows.length === 0 && (
        <p role="status" className="notice">
          {isWholeFleet(scope)
            ? "No worker reported in this time range. Pick a longer range, or check that your sources are still sending."
            : `No worker of ${describeScope(scope)} reported in this time range. Pick another cluster or model, or a longer range.`}
        </p>
      )}
      {list.data && rows && rows.length > 0 && <WorkersTable rows={rows} to={list.data.to} rangeQuery={q} />}

      {rows && rows.length > 0 && (
        <>
          <section className="section" aria-labelledby="multiples-title">
            <h2 id="multiples-title">Prefix hit rate over time</h2>
            <p className="sub">
              Token-weighted per bucket ({s ? describeBuckets(s.step, s.source) : "…"}); 0–100 % scale; gaps are buckets
              without data. The figure beside each name is the whole range.
            </p>
            {series.isError && (
              <LoadError
                what="the hit-rate series"
                message={series.error.message}
                stale={Boolean(s)}
                onRetry={() => void series.refetch()}
              />
            )}
            {series.isPending && <div className="chart-card chart-skeleton skeleton" aria-busy="true" />}
            {s && window && (
              <HitRateMultiples series={s.workers} window={window} rates={rates} rangeQuery={q} marks={placed} />
            )}
            {s && <PolicyMarksNote marks={policyMarks} step={s.step} />}
          </section>
          <section className="section" aria-labelledby="heatmap-title">
            <h2 id="heatmap-title">KV utilization by worker</h2>
            <p className="sub">Active over total KV blocks per bucket; hover a cell for its value.</p>
            {series.isPending && <div className="chart-card chart-skeleton skeleton" aria-busy="true" />}
            {s && window && <KvHeatmap series={s.workers} window={window} marks={marks} rangeQuery={q} />}
          </section>
        </>
      )}
    </>
  );
}
