"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { CAUSE_COLOR, CAUSE_LABEL, CAUSES, causeText } from "@/components/charts/prepare/causes";
import { formatCount, formatMs, formatPercent, NO_DATA } from "@/components/format";
import { SessionTimeline } from "@/components/charts/session-timeline";
import { useTRPC } from "@/components/providers/trpc-provider";
import { TurnsTable } from "@/components/tables/turns-table";
import { KpiCard } from "@/components/ui/kpi-card";
import { LoadError } from "@/components/ui/load-error";
import { TurnDetails } from "@/components/views/turn-details";
import "@/components/ui/cluster-views.css";
import "@/components/ui/sessions.css";

const LANE_WIDTH = 960;

/** /sessions/[id]: agent lanes on a time axis (hover, zoom), every turn with its timing, tokens, worker, runner-up, policies and miss causes. */
export function SessionTraceView({ id }: { id: string }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.sessions.byId.queryOptions({ id }), refetchInterval: 5_000, retry: false });
  const [selected, setSelected] = useState<string | null>(null);
  const rows = useMemo(
    () =>
      q.data
        ? q.data.lanes
            .flatMap((l) => l.turns.map((t) => ({ t, lane: l })))
            .sort((a, b) => a.t.arrivedAt - b.t.arrivedAt)
        : [],
    [q.data],
  );
  const current = rows.find((r) => r.t.id === selected)?.t ?? null;
  const from = q.data?.totals.from ?? null;
  const to = q.data?.totals.to ?? null;
  const bounds = useMemo(
    () => (from !== null && to !== null ? { from, to: Math.max(to, from + 1) } : null),
    [from, to],
  );
  if (q.isError)
    return (
      <LoadError what={`session ${id}`} message={q.error.message} stale={false} onRetry={() => void q.refetch()} />
    );
  const s = q.data;
  const tot = s?.totals;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Session {id}</h1>
          <div className="sub">
            <Link href="/sessions">← Sessions</Link>
            {s &&
              ` · ${s.harness ?? "unknown harness"}${s.sessionType ? ` · ${s.sessionType}` : ""} · ${s.lanes.length} ${s.lanes.length === 1 ? "agent" : "agents"}`}
          </div>
        </div>
        <a className="button" href={`/api/sessions/${encodeURIComponent(id)}/export`} download>
          Export JSON
        </a>
      </div>
      <div className="kpis">
        <KpiCard id="kpi-turns" label="Turns" value={formatCount(tot?.turns ?? null)} loading={q.isPending} />
        <KpiCard
          id="kpi-cached"
          label="Cached share"
          value={formatPercent(tot?.cachedShare ?? null)}
          note={tot ? `${formatCount(tot.cachedTokens)} of ${formatCount(tot.inputTokens)} prompt tokens` : undefined}
          loading={q.isPending}
        />
        <KpiCard
          id="kpi-recomputed"
          label="Recomputed by cause"
          value={tot?.causes ? formatCount(tot.inputTokens - tot.cachedTokens) : NO_DATA}
          note={tot?.causes ? causeText(tot.causes) : "not attributed yet"}
          loading={q.isPending}
        />
        <KpiCard id="kpi-ttft" label="TTFT p50" value={formatMs(tot?.ttftP50 ?? null)} loading={q.isPending} />
        <KpiCard
          id="kpi-tools"
          label="Tool wait"
          value={formatMs(tot?.toolWaitMs ?? null)}
          note={tot ? `${formatCount(tot.toolCalls)} tool calls` : undefined}
          loading={q.isPending}
        />
      </div>
      {s && bounds && (
        <section className="section" aria-labelledby="lanes-heading">
          <h2 id="lanes-heading">Agents</h2>
          <div className="legend">
            <span>
              <i className="c-queue" />
              queue (est.)
            </span>
            <span>
              <i className="c-prefill" />
              prefill
            </span>
            <span>
              <i className="c-decode" />
              decode
            </span>
            <span>
              <i style={{ background: "var(--muted)" }} />
              tool call (● early dispatch, ✕ truncated)
            </span>
            <span>
              <i style={{ background: "#7c5cd6" }} />
              reasoning
            </span>
          </div>
          <SessionTimeline
            lanes={s.lanes}
            bounds={bounds}
            width={LANE_WIDTH}
            selected={selected}
            onSelect={setSelected}
          />
        </section>
      )}
      <section className="section" aria-labelledby="turns-heading">
        <h2 id="turns-heading">Turns</h2>
        <div className="legend">
          {CAUSES.map((c) => (
            <span key={c}>
              <i style={{ background: CAUSE_COLOR[c] }} />
              {CAUSE_LABEL[c]}
            </span>
          ))}
        </div>
        <TurnsTable rows={rows} selected={selected} onSelect={setSelected} />
        {current && <TurnDetails turn={current} />}
      </section>
    </>
  );
}
