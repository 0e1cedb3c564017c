"use client";
import { memo } from "react";
import type { Lane } from "@/server/analysis/sessions";

const H = 26;

/** One SVG row per trajectory: turns as queue/prefill/decode bars, tools as thin bars (dot: early dispatch, ✕: truncated), reasoning as ticks. */
export const SessionLanes = memo(function SessionLanes({ lanes, from, to, width, selected, onSelect }: { lanes: Lane[]; from: number; to: number; width: number; selected: string | null; onSelect: (id: string) => void }) {
  const span = Math.max(1, to - from);
  const x = (t: number) => ((t - from) / span) * width;
  return (
    <div className="lanes" data-testid="session-lanes">
      {lanes.map((l) => (
        <div className="lane" key={l.trajectoryId}>
          <div className="lane-label" style={{ paddingLeft: 8 + l.depth * 14 }} title={l.trajectoryId}>
            {l.depth > 0 ? "↳ " : ""}
            {l.role === "main" ? "main agent" : "subagent"} <span className="sub">{l.trajectoryId}</span>
          </div>
          <svg width={width} height={H} role="img" aria-label={`${l.role} ${l.trajectoryId}: ${l.turns.length} turns, ${l.tools.length} tool calls`}>
            {l.tools.map((t) => {
              const x0 = x(t.startedAt);
              const w = Math.max(1, x(t.endedAt ?? t.startedAt) - x0);
              return (
                <g key={t.toolCallId}>
                  <rect x={x0} y={H / 2 - 2} width={w} height={4} fill="var(--muted)" opacity={0.6}>
                    <title>{`${t.name} ${t.status}${t.earlyGainMs ? `, started ${t.earlyGainMs} ms before the stream ended` : ""}${t.truncated ? `, truncated at ${t.budgetLimit} ${t.budgetUnit}` : ""}`}</title>
                  </rect>
                  {t.earlyGainMs > 0 && <circle cx={x0} cy={H / 2} r={3} fill="var(--good)" />}
                  {t.truncated && <text x={x0 + w} y={H / 2 + 4} fontSize={10} fill="var(--bad)">✕</text>}
                  {t.reasoning.map((r, i) => <rect key={i} x={x(r.startedAt)} y={2} width={Math.max(1, x(r.endedAt) - x(r.startedAt))} height={3} fill="#7c5cd6" />)}
                </g>
              );
            })}
            {l.turns.map((u) => {
              const x0 = x(u.arrivedAt);
              const q = (u.split.queue ?? 0) / span * width;
              const p = (u.split.prefill ?? 0) / span * width;
              const d = (u.split.decode ?? 0) / span * width;
              const sel = u.id === selected;
              return (
                <g key={u.id} onClick={() => onSelect(u.id)} style={{ cursor: "pointer" }}>
                  <rect x={x0} y={6} width={Math.max(0.5, q)} height={H - 12} fill="#c9a227" />
                  <rect x={x0 + q} y={6} width={Math.max(0.5, p)} height={H - 12} fill="#d4761c" />
                  <rect x={x0 + q + p} y={6} width={Math.max(1, d)} height={H - 12} fill="#2f9e6b" />
                  {sel && <rect x={x0 - 1} y={4} width={Math.max(3, q + p + d + 2)} height={H - 8} fill="none" stroke="var(--accent)" strokeWidth={2} />}
                </g>
              );
            })}
          </svg>
        </div>
      ))}
    </div>
  );
});
