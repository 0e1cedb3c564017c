"use client";
import { usePolicyMarks } from "@/components/charts/policy-marks";
import { snapToWindow } from "@/components/charts/prepare/policy-marks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ClassStacksChart } from "@/components/charts/class-stacks-chart";
import { EvictionBars } from "@/components/charts/eviction-bars";
import { PercentLinesChart } from "@/components/charts/percent-lines-chart";
import { describeBuckets } from "@/components/charts/prepare/buckets";
import { formatAgo, formatCount, formatMsPair, formatPercent, NO_DATA } from "@/components/format";
import { classStacks, NO_BUCKETS, percentSeries } from "@/components/charts/prepare/workers";
import { useTRPC } from "@/components/providers/trpc-provider";
import { LostDecisionsTable } from "@/components/tables/lost-decisions-table";
import { KpiCard } from "@/components/ui/kpi-card";
import { LoadError } from "@/components/ui/load-error";
import { StateBadges } from "@/components/ui/state-badges";
import { TimeRangePicker } from "@/components/ui/time-range-picker";
import { useRange } from "@/components/ui/use-range";
import { rangeQuery } from "@/lib/time-range";
import { WorkerTiersSection } from "./worker-tiers-section";
import "@/components/ui/cluster-views.css";

const REFRESH_MS = 2_000;
const LINES = [
  { key: "hitRate" as const, name: "Prefix hit rate", color: "var(--series-1)" },
  { key: "util" as const, name: "KV utilization", color: "var(--series-5)" },
];

/** One worker over the time range: KPIs, hit rate and KV utilization, blocks by retention class, evictions, routing. */
export function WorkerDetailView({ id }: { id: string }) {
  const [range, setRange] = useRange();
  const trpc = useTRPC();
  const live = "preset" in range;
  const refresh = { refetchInterval: live ? REFRESH_MS : (false as const), placeholderData: keepPreviousData };
  const detail = useQuery({
    ...trpc.workers.byId.queryOptions({ id, range }),
    ...refresh,
    retry: (n, e) => e.data?.code !== "NOT_FOUND" && n < 1,
  });
  const series = useQuery({ ...trpc.workers.series.queryOptions({ range, workerId: id }), ...refresh });
  const blocks = useQuery({ ...trpc.workers.blocksByClass.queryOptions({ id, range }), ...refresh });
  const q = rangeQuery(range);
  const d = detail.data;
  const s = series.data;
  const b = blocks.data;
  const notFound = detail.error?.data?.code === "NOT_FOUND";
  const loading = detail.isPending;
  const points = s ? percentSeries(s.workers[0] ?? NO_BUCKETS, s) : null;
  const policyMarks = usePolicyMarks(range);
  const stacks = b ? classStacks(b.rows, b) : null;
  const sum = d?.summary;

  return (
    <>
      <p className="back">
        <Link href={`/workers?${q}`}>← All workers</Link>
      </p>
      <div className="page-head">
        <div>
          <h1>Worker {id}</h1>
          <div className="sub">
            {d && sum && (
              <>
                <StateBadges state={sum.state} joined={sum.joined} left={sum.left} /> {d.info.role ?? "role unknown"} ·{" "}
                {d.info.model ?? "model unknown"}
                {d.info.blockSize !== null && ` · ${d.info.blockSize} tokens per block`} · last seen{" "}
                {formatAgo(sum.lastSeen, d.to)}
                {live && " · "}
              </>
            )}
            {live && <span className="live">Live · refreshes every 2 s</span>}
          </div>
        </div>
        <TimeRangePicker value={range} onChange={setRange} />
      </div>

      {notFound && (
        <div className="notice" role="alert">
          <h2>No worker “{id}”</h2>
          <p>No telemetry has named this worker. It may have aged out, or the link is mistyped.</p>
        </div>
      )}
      {detail.isError && !notFound && (
        <LoadError
          what="this worker"
          message={detail.error.message}
          stale={Boolean(d)}
          onRetry={() => void detail.refetch()}
        />
      )}

      {!notFound && !(detail.isError && !d) && (
        <div className="kpis">
          <KpiCard
            id="kpi-hit-rate"
            label="Prefix hit rate"
            value={formatPercent(sum?.hitRate ?? null)}
            note={sum ? `token-weighted, ${formatCount(sum.queryTokens)} tokens queried` : undefined}
            loading={loading}
          />
          <KpiCard
            id="kpi-kv"
            label="KV utilization"
            value={formatPercent(sum?.kvUtilization ?? null)}
            note="latest sample"
            loading={loading}
          />
          <KpiCard
            id="kpi-queue"
            label="Running / waiting"
            value={sum ? `${formatCount(sum.running)} / ${formatCount(sum.waiting)}` : NO_DATA}
            note="latest sample"
            loading={loading}
          />
          <KpiCard
            id="kpi-itl"
            label="ITL p50 / p95"
            value={d ? formatMsPair(d.decode.itlP50Ms, d.decode.itlP95Ms) : NO_DATA}
            note="inter-token latency per request"
            loading={loading}
          />
          <KpiCard
            id="kpi-preemptions"
            label="Preemptions"
            value={formatCount(d ? d.decode.preemptions : null)}
            note={
              d && d.decode.batchTokens !== null
                ? `${formatCount(Math.round(d.decode.batchTokens))} tokens per pass`
                : "in this range"
            }
            loading={loading}
          />
          <KpiCard
            id="kpi-served"
            label="Requests served"
            value={formatCount(d ? d.requestsServed : null)}
            note="in this range"
            loading={loading}
          />
          <KpiCard
            id="kpi-won"
            label="Routing decisions won"
            value={formatCount(sum ? sum.won : null)}
            note={
              sum
                ? sum.routingShare === null
                  ? "no routing decisions in this range"
                  : `${formatPercent(sum.routingShare)} of all decisions`
                : undefined
            }
            loading={loading}
          />
          <KpiCard
            id="kpi-lost"
            label="Routing decisions lost"
            value={formatCount(d ? d.lost.count : null)}
            note={
              d
                ? d.lost.truncated
                  ? `among the latest ${formatCount(d.lost.scanned)} decisions`
                  : "a candidate, another worker chosen"
                : undefined
            }
            loading={loading}
          />
        </div>
      )}

      {!notFound && (
        <>
          <section className="section" aria-labelledby="time-title">
            <h2 id="time-title">Hit rate and KV utilization over time</h2>
            <p className="sub">{s ? describeBuckets(s.step, s.source) : "…"}; gaps are buckets without samples.</p>
            <div className="chart-card">
              {series.isError && (
                <LoadError
                  what="the series"
                  message={series.error.message}
                  stale={Boolean(s)}
                  onRetry={() => void series.refetch()}
                />
              )}
              {series.isPending && <div className="chart-skeleton skeleton" aria-busy="true" />}
              {s &&
                points &&
                (s.workers.length === 0 ? (
                  <div className="chart-empty">No samples from this worker in this range.</div>
                ) : (
                  <PercentLinesChart
                    data={points}
                    lines={LINES}
                    step={s.step}
                    label={`Prefix hit rate and KV utilization of ${id}`}
                    marks={snapToWindow(policyMarks, s)}
                  />
                ))}
            </div>
          </section>

          <div className="two-col section">
            <section className="chart-card" aria-labelledby="classes-title">
              <h3 id="classes-title">Blocks stored by retention class</h3>
              {blocks.isError && (
                <LoadError
                  what="the KV events"
                  message={blocks.error.message}
                  stale={Boolean(b)}
                  onRetry={() => void blocks.refetch()}
                />
              )}
              {blocks.isPending && <div className="chart-skeleton skeleton" aria-busy="true" />}
              {b && stacks && stacks.empty && (
                <div className="chart-empty">No kv.stored events from this worker in this range.</div>
              )}
              {b && stacks && !stacks.empty && (
                <>
                  {!stacks.anyClassified && (
                    <p className="sub">
                      The source reports no retention class on its kv.stored events, so all blocks show as unclassified.
                    </p>
                  )}
                  <ClassStacksChart stacks={stacks} step={b.step} />
                  <p className="sub">Blocks entering the cache per bucket; kv.removed events carry no class.</p>
                </>
              )}
            </section>
            <section className="chart-card" aria-labelledby="evictions-title">
              <h3 id="evictions-title">Evictions by reason</h3>
              {d && d.removals.length === 0 && (
                <div className="chart-empty">No kv.removed or kv.cleared events in this range.</div>
              )}
              {d && d.removals.length > 0 && <EvictionBars removals={d.removals} />}
              {loading && <div className="chart-skeleton skeleton" aria-busy="true" />}
            </section>
          </div>

          <WorkerTiersSection id={id} range={range} refetchInterval={refresh.refetchInterval} />

          <section className="section" aria-labelledby="lost-title">
            <h2 id="lost-title">Latest routing decisions lost</h2>
            {d && d.lost.recent.length === 0 && (
              <p className="sub">This worker lost no routing decision in this range.</p>
            )}
            {d && d.lost.recent.length > 0 && <LostDecisionsTable rows={d.lost.recent} rangeQuery={q} now={d.to} />}
          </section>
        </>
      )}
    </>
  );
}
