"use client";
import { useSearchParams } from "next/navigation";
import { useCallback, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import { LaneBars, LANE_H } from "@/components/charts/lane-bars";
import {
  clampView,
  dragView,
  formatOffset,
  panView,
  parseZoom,
  timeTicks,
  xOf,
  zoomParam,
  zoomView,
  type Span,
} from "@/components/charts/prepare/timeline";
import { itemDetails, laneItems, type BarDetails, type LaneItem } from "@/components/charts/prepare/trace-details";
import type { Lane } from "@/server/analysis/session-assembly";

const AXIS_TICKS = 10;
const ZOOM_STEP = 0.5;
/** A bar of a lane (LaneBars keys them by kind). */
const BAR = '[data-testid^="turn:"], [data-testid^="tool:"], [data-testid^="reasoning:"]';

type Pointed = { lane: number; key: string; left: number; top: number };

/**
 * The session's agent lanes on a shared time axis (offsets from the session's start). Hover or focus a bar for its
 * details; drag across the lanes or use the buttons to zoom (kept in the URL as ?zoom=start-end, ms from the start);
 * a lane takes focus with Tab and then ← → step through its bars, Enter selects a turn, + − zoom and 0 resets.
 */
export function SessionTimeline({
  lanes,
  bounds,
  width,
  selected,
  onSelect,
}: {
  lanes: Lane[];
  bounds: Span;
  width: number;
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const params = useSearchParams();
  const zoom = params.get("zoom");
  const view = useMemo(() => parseZoom(zoom, bounds), [zoom, bounds]);
  // The native history API: Next keeps useSearchParams in step without a server round trip for each zoom.
  const setView = useCallback(
    (v: Span) => {
      const q = new URLSearchParams(window.location.search);
      const z = zoomParam(clampView(v, bounds), bounds);
      if (z) q.set("zoom", z);
      else q.delete("zoom");
      const s = q.toString();
      window.history.replaceState(null, "", s ? `?${s}` : window.location.pathname);
    },
    [bounds],
  );
  const items = useMemo(() => lanes.map(laneItems), [lanes]);
  const ticks = useMemo(() => timeTicks(bounds.from, view, AXIS_TICKS), [bounds.from, view]);
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<Pointed | null>(null);
  const [active, setActive] = useState<Pointed | null>(null);
  const [drag, setDrag] = useState<{ lane: number; x0: number; x1: number } | null>(null);
  const whole = view.from <= bounds.from && view.to >= bounds.to;

  const place = (lane: number, key: string, clientX?: number, clientY?: number): Pointed | null => {
    const root = box.current;
    const el = root?.querySelector(`[data-lane="${lane}"] [data-testid="${CSS.escape(key)}"]`);
    if (!root || !el) return null;
    const r = root.getBoundingClientRect();
    const b = el.getBoundingClientRect();
    return {
      lane,
      key,
      left: (clientX ?? b.left + b.width / 2) - r.left + 12,
      top: (clientY ?? b.bottom) - r.top + 12,
    };
  };
  const svgX = (e: PointerEvent<SVGSVGElement>) => e.clientX - e.currentTarget.getBoundingClientRect().left;
  const keyOf = (e: PointerEvent) => (e.target as Element).closest(BAR)?.getAttribute("data-testid") ?? null;

  const onPointerDown = (lane: number) => (e: PointerEvent<SVGSVGElement>) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    setDrag({ lane, x0: svgX(e), x1: svgX(e) });
  };
  const onPointerMove = (lane: number) => (e: PointerEvent<SVGSVGElement>) => {
    if (drag) return setDrag({ ...drag, x1: svgX(e) });
    const key = keyOf(e);
    setHover(key ? place(lane, key, e.clientX, e.clientY) : null);
  };
  const onPointerUp = (e: PointerEvent<SVGSVGElement>) => {
    if (!drag) return;
    const next = dragView(drag.x0, svgX(e), view, bounds, width);
    setDrag(null);
    if (next) return setView(next);
    const hit = document.elementFromPoint(e.clientX, e.clientY)?.closest(BAR)?.getAttribute("data-testid");
    if (hit?.startsWith("turn:")) onSelect(hit.slice(5));
  };

  const step = (lane: number, dir: 1 | -1 | "first" | "last") => {
    const list = items[lane] ?? [];
    if (list.length === 0) return;
    const at = active?.lane === lane ? list.findIndex((i) => i.key === active.key) : -1;
    const inView = list.findIndex((i) => i.to >= view.from);
    const i =
      dir === "first"
        ? 0
        : dir === "last"
          ? list.length - 1
          : at < 0
            ? Math.max(0, inView)
            : Math.min(list.length - 1, Math.max(0, at + dir));
    const item = list[i]!;
    if (item.to < view.from || item.from > view.to)
      setView(panView(view, bounds, (item.from - (view.from + view.to) / 2) / (view.to - view.from)));
    setActive({ lane, key: item.key, left: 0, top: 0 });
    requestAnimationFrame(() => setActive((a) => (a && a.key === item.key ? (place(lane, item.key) ?? a) : a)));
  };
  const onKeyDown = (lane: number) => (e: KeyboardEvent<SVGSVGElement>) => {
    const centre = active?.lane === lane ? items[lane]?.find((i) => i.key === active.key) : undefined;
    const at = centre ? (centre.from + centre.to) / 2 : undefined;
    const keys: Record<string, () => void> = {
      ArrowRight: () => step(lane, 1),
      ArrowLeft: () => step(lane, -1),
      Home: () => step(lane, "first"),
      End: () => step(lane, "last"),
      "+": () => setView(zoomView(view, bounds, ZOOM_STEP, at)),
      "=": () => setView(zoomView(view, bounds, ZOOM_STEP, at)),
      "-": () => setView(zoomView(view, bounds, 1 / ZOOM_STEP, at)),
      "0": () => setView(bounds),
      Enter: () => centre?.kind === "turn" && onSelect(centre.turn.id),
      " ": () => centre?.kind === "turn" && onSelect(centre.turn.id),
    };
    const act = keys[e.key];
    if (!act) return;
    e.preventDefault();
    act();
  };

  const shown = hover ?? active;
  const shownItem = shown ? items[shown.lane]?.find((i) => i.key === shown.key) : undefined;
  const details: BarDetails | null =
    shown && shownItem ? itemDetails(shownItem, lanes[shown.lane]!, bounds.from) : null;
  const ring = (lane: number, list: LaneItem[]) => {
    const marks: { key: string; kind: "selected" | "active"; item: LaneItem }[] = [];
    const sel = selected ? list.find((i) => i.kind === "turn" && i.turn.id === selected) : undefined;
    if (sel) marks.push({ key: "sel", kind: "selected", item: sel });
    const act = active?.lane === lane ? list.find((i) => i.key === active.key) : undefined;
    if (act) marks.push({ key: "act", kind: "active", item: act });
    return marks.map(({ key, kind, item }) => {
      const x0 = xOf(item.from, view, width);
      const w = Math.max(3, xOf(item.to, view, width) - x0);
      return (
        <rect
          key={key}
          x={x0 - 2}
          y={2}
          width={w + 4}
          height={LANE_H - 4}
          fill="none"
          stroke={kind === "selected" ? "var(--accent)" : "var(--text, currentColor)"}
          strokeWidth={2}
          strokeDasharray={kind === "active" ? "3 2" : undefined}
          pointerEvents="none"
        />
      );
    });
  };

  return (
    <div className="timeline" ref={box}>
      <div className="timeline-tools" role="toolbar" aria-label="Zoom the agent lanes">
        <button type="button" className="button" onClick={() => setView(zoomView(view, bounds, ZOOM_STEP))}>
          Zoom in
        </button>
        <button
          type="button"
          className="button"
          onClick={() => setView(zoomView(view, bounds, 1 / ZOOM_STEP))}
          disabled={whole}
        >
          Zoom out
        </button>
        <button
          type="button"
          className="button"
          onClick={() => setView(panView(view, bounds, -0.5))}
          disabled={view.from <= bounds.from}
        >
          Earlier
        </button>
        <button
          type="button"
          className="button"
          onClick={() => setView(panView(view, bounds, 0.5))}
          disabled={view.to >= bounds.to}
        >
          Later
        </button>
        <button type="button" className="button" onClick={() => setView(bounds)} disabled={whole}>
          Reset zoom
        </button>
        <span className="sub" data-testid="timeline-span">
          {whole
            ? `whole session, ${formatOffset(bounds.to - bounds.from)}`
            : `${formatOffset(view.from - bounds.from)} – ${formatOffset(view.to - bounds.from)} of ${formatOffset(bounds.to - bounds.from)}`}{" "}
          · drag across the lanes to zoom
        </span>
      </div>
      <div className="lanes" data-testid="session-lanes" onPointerLeave={() => setHover(null)}>
        <div className="lane lane-axis">
          <div className="lane-label sub">since start</div>
          <svg
            width={width}
            height={22}
            role="img"
            aria-label={`Time axis from ${ticks[0]?.label ?? "0 s"} to ${ticks.at(-1)?.label ?? "0 s"} since the session started`}
            data-testid="time-axis"
          >
            {ticks.map((t) => {
              const x = xOf(t.t, view, width);
              return (
                <g key={t.offset}>
                  <line x1={x} x2={x} y1={16} y2={22} stroke="var(--muted)" />
                  <text
                    x={x}
                    y={12}
                    fontSize={10}
                    textAnchor={x < 30 ? "start" : x > width - 30 ? "end" : "middle"}
                    fill="var(--muted)"
                  >
                    {t.label}
                  </text>
                </g>
              );
            })}
          </svg>
        </div>
        {lanes.map((l, li) => (
          <div className="lane" key={l.trajectoryId} data-lane={li}>
            <div className="lane-label" style={{ paddingLeft: 8 + l.depth * 14 }} title={l.trajectoryId}>
              {l.depth > 0 ? "↳ " : ""}
              {l.role === "main" ? "main agent" : "subagent"} <span className="sub">{l.trajectoryId}</span>
            </div>
            <svg
              width={width}
              height={LANE_H}
              tabIndex={0}
              role="group"
              aria-label={`${l.role} ${l.trajectoryId}: ${l.turns.length} turns, ${l.tools.length} tool calls. Arrow keys step through bars, Enter selects a turn, plus and minus zoom, 0 resets.`}
              aria-describedby={details && shown?.lane === li ? "timeline-details" : undefined}
              onPointerDown={onPointerDown(li)}
              onPointerMove={onPointerMove(li)}
              onPointerUp={onPointerUp}
              onKeyDown={onKeyDown(li)}
              onFocus={(e) => active?.lane !== li && e.currentTarget.matches(":focus-visible") && step(li, 1)}
              onBlur={() => setActive(null)}
              style={{ touchAction: "none" }}
            >
              <LaneBars items={items[li]!} view={view} width={width} ticks={ticks} />
              {ring(li, items[li]!)}
              {drag?.lane === li && (
                <rect
                  x={Math.min(drag.x0, drag.x1)}
                  y={0}
                  width={Math.abs(drag.x1 - drag.x0)}
                  height={LANE_H}
                  fill="var(--accent)"
                  opacity={0.15}
                  pointerEvents="none"
                  data-testid="zoom-selection"
                />
              )}
            </svg>
          </div>
        ))}
      </div>
      {details && shown && (
        <div
          id="timeline-details"
          role="tooltip"
          className="timeline-tip card"
          style={{ left: Math.max(0, Math.min(shown.left, width + 180 - 280)), top: shown.top }}
          data-testid="bar-details"
        >
          <strong>{details.title}</strong>
          <dl>
            {details.rows.map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
        </div>
      )}
    </div>
  );
}
