// Policy changes and alerts as chart annotations: where each published version, and each alert that fired or
// resolved, falls on a chart's time axis.
import { bucketStarts } from "./buckets";

/** kind "alert": an alert that fired or resolved (its label says which; `href` is the Alerts page). */
export type PolicyMark = { ts: number; kind: string; version: number; label: string; href?: string };
/** side: which side of its line the label goes, so labels near the right edge are not cut off. */
export type PlacedMark = { x: number; label: string; ts: number; side: "left" | "right" };

/** Several marks at one position read as one label: "retention v3, routing v2 published"; alerts by their own label. */
function joinLabels(marks: readonly PolicyMark[]): string {
  if (marks.length === 1) return marks[0]!.label;
  const versions = marks.filter((m) => m.kind !== "alert");
  const alerts = marks.filter((m) => m.kind === "alert").map((m) => m.label);
  const published = versions.length ? [`${versions.map((m) => `${m.kind} v${m.version}`).join(", ")} published`] : [];
  return [...published, ...alerts].join("; ");
}

/**
 * For category axes (one point per bucket start): each mark goes to the latest bucket start at or before it;
 * marks before the first or after the last bucket's end are dropped; marks sharing a bucket share one line.
 */
export function snapMarks(marks: readonly PolicyMark[], bucketStarts: readonly number[], step: number): PlacedMark[] {
  if (bucketStarts.length === 0) return [];
  const starts = [...bucketStarts].sort((a, b) => a - b);
  const groups = new Map<number, PolicyMark[]>();
  for (const m of marks) {
    if (m.ts < starts[0]! || m.ts >= starts[starts.length - 1]! + step) continue;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= m.ts) lo = mid;
      else hi = mid - 1;
    }
    const x = starts[lo]!;
    groups.set(x, [...(groups.get(x) ?? []), m]);
  }
  const mid = (starts[0]! + starts[starts.length - 1]! + step) / 2;
  return [...groups.entries()].map(([x, ms]) => ({
    x,
    label: joinLabels(ms),
    ts: ms[0]!.ts,
    side: x > mid ? "left" : "right",
  }));
}

/** For numeric time axes: marks inside [from, to], those closer than minGap ms to the previous joined into one. */
export function placeMarks(marks: readonly PolicyMark[], from: number, to: number, minGap = 0): PlacedMark[] {
  const inside = marks.filter((m) => m.ts >= from && m.ts <= to).sort((a, b) => a.ts - b.ts);
  const out: { x: number; marks: PolicyMark[] }[] = [];
  for (const m of inside) {
    const last = out[out.length - 1];
    if (last && m.ts - last.x < minGap) last.marks.push(m);
    else out.push({ x: m.ts, marks: [m] });
  }
  const mid = (from + to) / 2;
  return out.map((g) => ({ x: g.x, label: joinLabels(g.marks), ts: g.x, side: g.x > mid ? "left" : "right" }));
}

/** snapMarks over the buckets of a chart window (the starts the server buckets by). */
export function snapToWindow(
  marks: readonly PolicyMark[],
  w: { from: number; to: number; step: number },
): PlacedMark[] {
  return snapMarks(marks, bucketStarts(w.from, w.to, w.step), w.step);
}
