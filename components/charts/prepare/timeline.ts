// The session trace's time axis and zoom: ticks relative to the session's start, a visible span ("view") inside the
// session's bounds, and the mapping between time and pixels. Pure; times are Unix ms, offsets ms since the start.

export type Span = { from: number; to: number };
export type Tick = { t: number; offset: number; label: string };

/** Shortest span a zoom may show (ms): below this bars are wider than the lane anyway. */
export const MIN_SPAN_MS = 200;
const STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/** An offset from the session's start for the axis: "0 s", "30 s", "1 m", "1 m 30 s", "1 h 5 m", "250 ms", "1.5 s". */
export function formatOffset(ms: number): string {
  const v = Math.max(0, Math.round(ms));
  if (v === 0) return "0 s";
  if (v < 1_000) return `${v} ms`;
  if (v < 60_000) return v % 1_000 === 0 ? `${v / 1_000} s` : `${(v / 1_000).toFixed(v % 100 === 0 ? 1 : 2)} s`;
  const h = Math.floor(v / 3_600_000);
  const m = Math.floor((v % 3_600_000) / 60_000);
  const s = Math.round((v % 60_000) / 1_000);
  if (h > 0) return m ? `${h} h ${m} m` : `${h} h`;
  return s ? `${m} m ${s} s` : `${m} m`;
}

/** The smallest "nice" step (ms) that puts at most maxTicks ticks over a span of spanMs. */
export function tickStep(spanMs: number, maxTicks: number): number {
  const need = Math.max(1, spanMs) / Math.max(1, maxTicks);
  return STEPS.find((s) => s >= need) ?? Math.ceil(need / 86_400_000) * 86_400_000;
}

/** Axis ticks inside `view` at multiples of a nice step counted from `start` (the session's start), labelled as offsets. */
export function timeTicks(start: number, view: Span, maxTicks: number): Tick[] {
  const step = tickStep(view.to - view.from, maxTicks);
  const first = Math.ceil((view.from - start) / step) * step;
  const ticks: Tick[] = [];
  for (let offset = Math.max(0, first); start + offset <= view.to && ticks.length <= maxTicks; offset += step) {
    ticks.push({ t: start + offset, offset, label: formatOffset(offset) });
  }
  return ticks;
}

/** `view` kept inside `bounds` and at least MIN_SPAN_MS wide (or the whole session when that is shorter). */
export function clampView(view: Span, bounds: Span): Span {
  const total = Math.max(1, bounds.to - bounds.from);
  const span = Math.min(total, Math.max(MIN_SPAN_MS, view.to - view.from));
  const from = Math.min(Math.max(view.from, bounds.from), bounds.to - span);
  return { from, to: from + span };
}

/** Zoom by `factor` (< 1 in, > 1 out) around `at` (default: the middle), clamped to the session. */
export function zoomView(view: Span, bounds: Span, factor: number, at = (view.from + view.to) / 2): Span {
  const from = at - (at - view.from) * factor;
  const to = at + (view.to - at) * factor;
  return clampView({ from, to }, bounds);
}

/** Move the view by `fraction` of its width (negative: earlier), clamped to the session. */
export function panView(view: Span, bounds: Span, fraction: number): Span {
  const d = (view.to - view.from) * fraction;
  return clampView({ from: view.from + d, to: view.to + d }, bounds);
}

/** Time at pixel `x` of a lane `width` px wide showing `view`. */
export function timeAt(x: number, view: Span, width: number): number {
  return view.from + (Math.min(Math.max(x, 0), width) / width) * (view.to - view.from);
}

/** Pixel of time `t` in a lane `width` px wide showing `view` (may fall outside 0..width). */
export function xOf(t: number, view: Span, width: number): number {
  return ((t - view.from) / Math.max(1, view.to - view.from)) * width;
}

/** The view a drag from x0 to x1 (px, either direction) selects; null for a drag under 4 px (a click). */
export function dragView(x0: number, x1: number, view: Span, bounds: Span, width: number): Span | null {
  if (Math.abs(x1 - x0) < 4) return null;
  return clampView({ from: timeAt(Math.min(x0, x1), view, width), to: timeAt(Math.max(x0, x1), view, width) }, bounds);
}

/** Whether a bar [from, to] shows in the view at all. */
export function overlaps(from: number, to: number, view: Span): boolean {
  return to >= view.from && from <= view.to;
}

/** The view as a URL value, "startOffset-endOffset" in ms from the session's start; null for the whole session. */
export function zoomParam(view: Span, bounds: Span): string | null {
  if (view.from <= bounds.from && view.to >= bounds.to) return null;
  return `${Math.round(view.from - bounds.from)}-${Math.round(view.to - bounds.from)}`;
}

/** The view a URL value names, clamped to the session; the whole session when absent or malformed. */
export function parseZoom(value: string | null, bounds: Span): Span {
  const m = /^(\d{1,12})-(\d{1,12})$/.exec(value ?? "");
  if (!m || Number(m[2]) <= Number(m[1])) return bounds;
  return clampView({ from: bounds.from + Number(m[1]), to: bounds.from + Number(m[2]) }, bounds);
}
