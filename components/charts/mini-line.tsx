"use client";
import { useState, type MouseEvent } from "react";
import { bucketAt, miniLinePath, type MiniLineBox } from "@/components/charts/prepare/mini-line";

// A small line chart as plain SVG: one path, dashed lines for policy changes and, with a readout, a cursor and one line
// of text under the pointer. The Workers page draws one per worker and the Overview one per KPI, both refreshed every
// 2 s: a chart library's instance each made those refreshes cost about a fifth of the browser's main thread with 16
// workers (docs/benchmarks.md, "Pages in the browser").

export type MiniLinePoint = { t: number; v: number | null };

export function MiniLine({
  points,
  marks = [],
  label,
  readout,
  height = 56,
  max = 100,
  color = "var(--series-1)",
}: {
  points: readonly MiniLinePoint[];
  /** Bucket starts (a point's t) to mark with a dashed line. */
  marks?: readonly number[];
  /** The chart's accessible name; without one the chart is hidden from assistive technology (its parent says it). */
  label?: string;
  /** The readout of a hovered point; without one the chart does not follow the pointer. */
  readout?: (p: MiniLinePoint) => string;
  height?: number;
  /** The value at the top: a number, or "auto" for the largest value shown. */
  max?: number | "auto";
  color?: string;
}) {
  const [hover, setHover] = useState<number | null>(null);
  const n = points.length;
  const top =
    max === "auto" ? Math.max(0, ...points.map((p) => (p.v !== null && Number.isFinite(p.v) ? p.v : 0))) : max;
  const box: MiniLineBox = { top: 3, height: height - 6, max: top };
  const index = new Map(points.map((p, i) => [p.t, i]));
  const marked = [...new Set(marks.flatMap((t) => (index.has(t) ? [index.get(t)!] : [])))];
  const onMove = (e: MouseEvent<SVGSVGElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    setHover(bucketAt(e.clientX - r.left, r.width, n));
  };
  const hovered = hover !== null && readout && points[hover] ? { i: hover, text: readout(points[hover]) } : null;
  return (
    <div className="mini-line">
      <svg
        viewBox={`0 0 ${Math.max(1, n)} ${height}`}
        preserveAspectRatio="none"
        width="100%"
        height={height}
        {...(label ? { role: "img", "aria-label": label } : { "aria-hidden": true })}
        {...(readout ? { onMouseMove: onMove, onMouseLeave: () => setHover(null) } : {})}
      >
        {marked.map((i) => (
          <line
            key={i}
            x1={i + 0.5}
            x2={i + 0.5}
            y1={0}
            y2={height}
            stroke="var(--accent)"
            strokeDasharray="4 3"
            vectorEffect="non-scaling-stroke"
          />
        ))}
        <path
          d={miniLinePath(
            points.map((p) => p.v),
            box,
          )}
          fill="none"
          stroke={color}
          strokeWidth={1.4}
          strokeLinejoin="round"
          vectorEffect="non-scaling-stroke"
        />
        {hovered && (
          <line
            x1={hovered.i + 0.5}
            x2={hovered.i + 0.5}
            y1={0}
            y2={height}
            stroke="var(--muted)"
            vectorEffect="non-scaling-stroke"
          />
        )}
      </svg>
      {hovered && (
        <div
          className="mini-line-readout"
          style={
            hovered.i < n / 2
              ? { left: `${((hovered.i + 1) / n) * 100}%` }
              : { right: `${((n - hovered.i) / n) * 100}%` }
          }
        >
          {hovered.text}
        </div>
      )}
    </div>
  );
}
