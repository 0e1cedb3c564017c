"use client";
import { PolicyMarksNote, usePolicyMarks } from "@/components/charts/policy-marks";
import { placeMarks } from "@/components/charts/prepare/policy-marks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ChartFrame } from "@/components/charts/chart-frame";
import { MetricChart, ReplicasChart } from "@/components/charts/planner-role-charts";
import { actionStyle, currentReplicas, metricLabel, plannerRows } from "@/components/charts/prepare/planner";
import { formatCount, formatRange } from "@/components/format";
import { useTRPC } from "@/components/providers/trpc-provider";
import { PlannerDecisionsTable } from "@/components/tables/planner-decisions-table";
import { LoadError } from "@/components/ui/load-error";
import { Pager } from "@/components/ui/pager";
import { TimeRangePicker } from "@/components/ui/time-range-picker";
import { ScopePicker } from "@/components/ui/scope-picker";
import { useScope } from "@/components/ui/use-scope";
import { describeScope, scopeQuery } from "@/lib/scope";
import { useCursorPages } from "@/components/ui/use-cursor-pages";
import { useRange } from "@/components/ui/use-range";
import { rangeQuery } from "@/lib/time-range";
import "@/components/ui/cluster-views.css";
import "@/components/ui/decisions.css";

const REFRESH_MS = 2_000;
const PAGE_SIZE = 25;
const ROLES = ["prefill", "decode", "aggregated"] as const;
type Role = (typeof ROLES)[number];

/** /planner: replicas per role with every decision marked, the observed metric against its thresholds, and each decision's reason. */
export function PlannerView() {
  const [range, setRange] = useRange();
  const [scope, setScope, scopeProblem] = useScope();
  const trpc = useTRPC();
  const live = "preset" in range;
  const [role, setRole] = useState<Role | "">("");
  const [actionsOnly, setActionsOnly] = useState(false);
  const pages = useCursorPages<{ ts: number; id: string }>(
    `${rangeQuery(range)}|${scopeQuery(scope)}|${role}|${actionsOnly}`,
  );
  const series = useQuery({
    ...trpc.planner.series.queryOptions({ range, ...scope }),
    refetchInterval: live ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const list = useQuery({
    ...trpc.planner.list.queryOptions({
      range,
      ...scope,
      cursor: pages.cursor,
      limit: PAGE_SIZE,
      role: role || undefined,
      actionsOnly,
    }),
    refetchInterval: live && pages.page === 1 ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
  const s = series.data;
  const policyMarks = usePolicyMarks(range);
  const placed = s ? placeMarks(policyMarks, s.from, s.to, s.step) : [];

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Planner</h1>
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
          what="planner series"
          message={series.error.message}
          stale={Boolean(s)}
          onRetry={() => void series.refetch()}
        />
      )}
      {series.isPending && (
        <div className="chart-card" role="progressbar" aria-busy="true" aria-label="Loading planner series">
          <div className="chart-skeleton skeleton" />
        </div>
      )}
      {s && s.roles.length === 0 && (
        <p className="chart-empty card" role="status">
          No planner decisions in this range or before it. The planner reports each adjustment as a planner.decision
          event.
        </p>
      )}
      {s && s.roles.length > 0 && (
        <div className="legend-dots" aria-label="Decision marks">
          {(["scale_up", "scale_down", "none"] as const).map((a) => (
            <span key={a} style={{ ["--dot" as string]: actionStyle(a).color }}>
              {actionStyle(a).label}
            </span>
          ))}
        </div>
      )}
      {s && s.roles.length > 0 && <PolicyMarksNote marks={policyMarks} step={s.step} />}
      {s?.roles.map((r, i) => {
        const rows = plannerRows(r, s);
        const now = currentReplicas(r);
        const label = metricLabel(r.metric, r.role);
        const key = `${r.role}-${i}`;
        return (
          <section key={key} className="role-panel" aria-labelledby={`role-${key}`}>
            <h3 id={`role-${key}`}>
              {r.role}
              {r.model && <> · {r.model}</>}
              <span className="sub">
                {now === null ? "replicas unknown" : `${now} replica${now === 1 ? "" : "s"} now`} ·{" "}
                {formatCount(r.decisions)} decisions · {r.scaleUps} up, {r.scaleDowns} down
              </span>
            </h3>
            <div className="two-col">
              <ChartFrame
                title="Replicas"
                loading={false}
                empty={rows.length === 0}
                emptyText="No decisions in this range."
              >
                <ReplicasChart rows={rows} role={r.role} from={s.from} to={s.to} step={s.step} marks={placed} />
              </ChartFrame>
              <ChartFrame
                title={`${label} vs. thresholds`}
                note="Bucket mean; thresholds as each decision carried them."
                loading={false}
                empty={r.buckets.length === 0}
                emptyText={`No decisions in this range; ${now ?? "unknown"} replicas since the last one.`}
              >
                <MetricChart
                  rows={rows}
                  role={r.role}
                  metric={r.metric}
                  from={s.from}
                  to={s.to}
                  step={s.step}
                  marks={placed}
                />
              </ChartFrame>
            </div>
          </section>
        );
      })}

      <section className="section" aria-labelledby="planner-decisions-heading">
        <div className="section-head">
          <h2 id="planner-decisions-heading">Decisions</h2>
          <div className="filters">
            <label>
              Role{" "}
              <select value={role} onChange={(e) => setRole(e.target.value as Role | "")}>
                <option value="">all</option>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </label>
            <label className="check">
              <input type="checkbox" checked={actionsOnly} onChange={(e) => setActionsOnly(e.target.checked)} /> Only
              scale-ups and -downs
            </label>
          </div>
        </div>
        {list.isError && (
          <LoadError
            what="planner decisions"
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
            No planner decisions {actionsOnly ? "that scaled " : ""}in this range.
          </p>
        )}
        {list.data && list.data.items.length > 0 && (
          <PlannerDecisionsTable items={list.data.items} now={list.data.to} />
        )}
        <Pager
          label="Planner decisions"
          page={pages.page}
          hasOlder={Boolean(list.data?.nextCursor)}
          onNewer={pages.newer}
          onOlder={() => list.data?.nextCursor && pages.older(list.data.nextCursor)}
        />
      </section>
    </>
  );
}
