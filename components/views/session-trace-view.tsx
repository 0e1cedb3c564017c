"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState, type KeyboardEvent } from "react";
import { SessionLanes } from "@/components/charts/session-lanes";
import { CAUSE_COLOR, CAUSE_LABEL, CAUSES, causeText } from "@/components/charts/prepare/causes";
import { formatCount, formatMs, formatPercent } from "@/components/format";
import { useTRPC } from "@/components/providers/trpc-provider";
import { CauseBar } from "@/components/ui/cause-bar";
import { KpiCard } from "@/components/ui/kpi-card";
import { LoadError } from "@/components/ui/load-error";
import { TurnDetails } from "@/components/views/turn-details";
import "@/components/ui/cluster-views.css";
import "@/components/ui/sessions.css";

const LANE_WIDTH = 960;

/** /sessions/[id]: agent lanes, every turn with its timing, tokens, worker, runner-up, policies and miss causes. */
export function SessionTraceView({ id }: { id: string }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.sessions.byId.queryOptions({ id }), refetchInterval: 5_000, retry: false });
  const [selected, setSelected] = useState<string | null>(null);
  const rows = useMemo(() => (q.data ? q.data.lanes.flatMap((l) => l.turns.map((t) => ({ t, lane: l }))).sort((a, b) => a.t.arrivedAt - b.t.arrivedAt) : []), [q.data]);
  const current = rows.find((r) => r.t.id === selected)?.t ?? null;
  const onKey = (e: KeyboardEvent<HTMLTableSectionElement>) => {
    const i = rows.findIndex((r) => r.t.id === selected);
    const next = e.key === "ArrowDown" ? i + 1 : e.key === "ArrowUp" ? i - 1 : null;
    if (next === null || !rows[next]) return;
    e.preventDefault();
    setSelected(rows[next]!.t.id);
    (document.getElementById(`turn-${next}`) as HTMLElement | null)?.focus();
  };
  if (q.isError) return <LoadError what={`session ${id}`} message={q.error.message} stale={false} onRetry={() => void q.refetch()} />;
  const s = q.data;
  const tot = s?.totals;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Session {id}</h1>
          <div className="sub">
            <Link href="/sessions">← Sessions</Link>
            {s && ` · ${s.harness ?? "unknown harness"}${s.sessionType ? ` · ${s.sessionType}` : ""} · ${s.lanes.length} ${s.lanes.length === 1 ? "agent" : "agents"}`}
          </div>
        </div>
        <a className="button" href={`/api/sessions/${encodeURIComponent(id)}/export`} download>
          Export JSON
        </a>
      </div>
      <div className="kpis">
        <KpiCard id="kpi-turns" label="Turns" value={formatCount(tot?.turns ?? null)} loading={q.isPending} />
        <KpiCard id="kpi-cached" label="Cached share" value={formatPercent(tot?.cachedShare ?? null)} note={tot ? `${formatCount(tot.cachedTokens)} of ${formatCount(tot.inputTokens)} prompt tokens` : undefined} loading={q.isPending} />
        <KpiCard id="kpi-recomputed" label="Recomputed by cause" value={tot?.causes ? formatCount(tot.inputTokens - tot.cachedTokens) : "—"} note={tot?.causes ? causeText(tot.causes) : "not attributed yet"} loading={q.isPending} />
        <KpiCard id="kpi-ttft" label="TTFT p50" value={formatMs(tot?.ttftP50 ?? null)} loading={q.isPending} />
        <KpiCard id="kpi-tools" label="Tool wait" value={formatMs(tot?.toolWaitMs ?? null)} note={tot ? `${formatCount(tot.toolCalls)} tool calls` : undefined} loading={q.isPending} />
      </div>
      {s && tot && tot.from !== null && tot.to !== null && (
        <section className="section" aria-labelledby="lanes-heading">
          <h2 id="lanes-heading">Agents</h2>
          <div className="legend">
            <span><i className="c-queue" />queue (est.)</span>
            <span><i className="c-prefill" />prefill</span>
            <span><i className="c-decode" />decode</span>
            <span><i style={{ background: "var(--muted)" }} />tool call (● early dispatch, ✕ truncated)</span>
            <span><i style={{ background: "#7c5cd6" }} />reasoning</span>
          </div>
          <SessionLanes lanes={s.lanes} from={tot.from} to={tot.to} width={LANE_WIDTH} selected={selected} onSelect={setSelected} />
        </section>
      )}
      <section className="section" aria-labelledby="turns-heading">
        <h2 id="turns-heading">Turns</h2>
        <div className="legend">
          {CAUSES.map((c) => (
            <span key={c}><i style={{ background: CAUSE_COLOR[c] }} />{CAUSE_LABEL[c]}</span>
          ))}
        </div>
        <div className="table-scroll turn-list">
          <table className="sessions-table" aria-label="Turns">
            <thead>
              <tr>
                <th scope="col">Turn</th>
                <th scope="col">Agent</th>
                <th scope="col">Input</th>
                <th scope="col">Cached</th>
                <th scope="col">Output</th>
                <th scope="col">Reasoning</th>
                <th scope="col">TTFT</th>
                <th scope="col">Worker</th>
                <th scope="col">Runner-up</th>
                <th scope="col">Policies</th>
                <th scope="col">Miss causes</th>
              </tr>
            </thead>
            <tbody onKeyDown={onKey}>
              {rows.map(({ t, lane }, i) => (
                <tr key={t.id} id={`turn-${i}`} className="turn-row" tabIndex={0} aria-selected={t.id === selected} onClick={() => setSelected(t.id)} onKeyDown={(e) => e.key === "Enter" && setSelected(t.id)}>
                  <td>{t.requestId}</td>
                  <td className="text">{lane.role === "main" ? "main" : `sub ${lane.trajectoryId}`}</td>
                  <td>{formatCount(t.inputTokens)}</td>
                  <td>{formatCount(t.cachedTokens)}</td>
                  <td>{formatCount(t.outputTokens)}</td>
                  <td>{formatCount(t.reasoningTokens)}</td>
                  <td>{formatMs(t.ttft)}</td>
                  <td>{t.workerId ?? "—"}</td>
                  <td>{t.runnerUp ? `${t.runnerUp.workerId} (cost ${t.runnerUp.cost}${t.chosen ? ` vs ${t.chosen.cost}` : ""})` : "—"}</td>
                  <td className="text">{t.policyVersions ? Object.entries(t.policyVersions).map(([k, v]) => `${k[0]}${v}`).join(" ") : "—"}</td>
                  <td className="text">{t.causes ? <><CauseBar causes={t.causes} /> {causeText(t.causes)}</> : "pending"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {current && <TurnDetails turn={current} />}
      </section>
    </>
  );
}
