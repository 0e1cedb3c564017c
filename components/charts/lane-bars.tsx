"use client";
import { memo } from "react";
import { overlaps, xOf, type Span, type Tick } from "@/components/charts/prepare/timeline";
import type { LaneItem } from "@/components/charts/prepare/trace-details";

export const LANE_H = 26;
const H = LANE_H;

/**
 * One lane's bars in the visible span: turns as queue/prefill/decode, tools as thin bars (dot: early dispatch, ✕:
 * truncated), reasoning as ticks above; faint lines at the axis ticks. Memoised: hover, focus and selection draw
 * over it without re-rendering a lane of hundreds of bars. Each bar carries its item key as data-testid (hit testing, tests).
 */
export const LaneBars = memo(function LaneBars({
  items,
  view,
  width,
  ticks,
}: {
  items: LaneItem[];
  view: Span;
  width: number;
  ticks: Tick[];
}) {
  const x = (t: number) => xOf(t, view, width);
  const px = (ms: number | null) => ((ms ?? 0) / Math.max(1, view.to - view.from)) * width;
  return (
    <g>
      {ticks.map((t) => (
        <line key={t.offset} x1={x(t.t)} x2={x(t.t)} y1={0} y2={H} stroke="var(--border)" />
      ))}
      {items.map((it) => {
        if (!overlaps(it.from, it.to, view)) return null;
        const x0 = x(it.from);
        if (it.kind === "reasoning")
          return (
            <rect
              key={it.key}
              data-testid={it.key}
              x={x0}
              y={1}
              width={Math.max(1, x(it.to) - x0)}
              height={4}
              fill="#7c5cd6"
            />
          );
        if (it.kind === "tool") {
          const t = it.tool;
          const w = Math.max(1, x(it.to) - x0);
          return (
            <g key={it.key} data-testid={it.key}>
              <rect x={x0} y={H / 2 - 4} width={w} height={8} fill="transparent" />
              <rect x={x0} y={H / 2 - 2} width={w} height={4} fill="var(--muted)" opacity={0.6} />
              {t.earlyGainMs > 0 && <circle cx={x0} cy={H / 2} r={3} fill="var(--good)" />}
              {t.truncated && (
                <text x={x0 + w} y={H / 2 + 4} fontSize={10} fill="var(--bad)">
                  ✕
                </text>
              )}
            </g>
          );
        }
        const s = it.turn.split;
        const [q, p, d] = [px(s.queue), px(s.prefill), px(s.decode)];
        return (
          <g key={it.key} data-testid={`turn:${it.turn.id}`} style={{ cursor: "pointer" }}>
            <rect x={x0} y={6} width={Math.max(0.5, q)} height={H - 12} fill="#c9a227" />
            <rect x={x0 + q} y={6} width={Math.max(0.5, p)} height={H - 12} fill="#d4761c" />
            <rect x={x0 + q + p} y={6} width={Math.max(1, d)} height={H - 12} fill="#2f9e6b" />
          </g>
        );
      })}
    </g>
  );
});
