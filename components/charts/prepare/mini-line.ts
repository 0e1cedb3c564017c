// A small line chart drawn as plain SVG paths: one x unit per bucket (the point in its middle), y in pixels from the top.
// Pure. Gaps (null) break the line, as recharts' connectNulls={false} does; a point alone between gaps is drawn as a
// short level stroke so it still shows.

/** Vertical layout: the line lies in [top, top + height] pixels, `max` at the top and 0 at the bottom. */
export type MiniLineBox = { top: number; height: number; max: number };

/** Half the width, in buckets, of the stroke drawn for a point with gaps on both sides. */
const LONE_HALF_WIDTH = 0.3;

const round = (v: number) => Math.round(v * 100) / 100;

/** The y pixel of value v (clamped to [0, max]). */
export function miniLineY(v: number, box: MiniLineBox): number {
  const f = box.max > 0 ? Math.min(1, Math.max(0, v / box.max)) : 0;
  return round(box.top + (1 - f) * box.height);
}

/** The SVG path of the values, bucket i at x = i + 0.5; "" when there is no value at all. */
export function miniLinePath(values: readonly (number | null)[], box: MiniLineBox): string {
  const parts: string[] = [];
  let run: string[] = [];
  /** The y of the run's first point (all a lone point's stroke needs). */
  let firstY = 0;
  const flush = (lastIndex: number) => {
    if (run.length === 1) {
      const x = lastIndex + 0.5;
      parts.push(`M${round(x - LONE_HALF_WIDTH)} ${firstY}H${round(x + LONE_HALF_WIDTH)}`);
    } else if (run.length > 1) parts.push(`M${run.join("L")}`);
    run = [];
  };
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) return flush(i - 1);
    const y = miniLineY(v, box);
    if (run.length === 0) firstY = y;
    run.push(`${i + 0.5} ${y}`);
  });
  flush(values.length - 1);
  return parts.join("");
}

/** The bucket under a pointer at `offset` pixels into a chart `width` pixels wide with `count` buckets. */
export function bucketAt(offset: number, width: number, count: number): number | null {
  if (count <= 0 || !(width > 0)) return null;
  return Math.min(count - 1, Math.max(0, Math.floor((offset / width) * count)));
}
