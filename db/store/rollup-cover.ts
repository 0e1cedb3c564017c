// A time range split into the rollup buckets it holds whole and the raw edges left over, for reads that sum the
// 15-minute rollups, the 1-minute ones around them and raw rows at the edges: the same totals as summing the finer
// rows, with far fewer rows read.

const MINUTE = 60_000;
const QUARTER = 900_000;

export type Span = { from: number; to: number };
/** [from, to) in pieces: 15-minute buckets it holds whole, the whole minutes around them, the raw edges left over. */
export type RollupCover = { quarters: Span | null; minutes: Span[]; raw: Span[] };

const ceilTo = (t: number, step: number) => Math.ceil(t / step) * step;
const floorTo = (t: number, step: number) => Math.floor(t / step) * step;
const nonEmpty = (spans: Span[]) => spans.filter((x) => x.to > x.from);

/**
 * How to read [from, to) (Unix ms) from the 15- and 1-minute rollups (bucket starts epoch-aligned, as ingest's minuteOf)
 * and raw rows: each instant in exactly one piece, empty pieces left out. A minute-aligned range has no raw pieces.
 */
export function rollupCover(from: number, to: number): RollupCover {
  if (!(to > from)) return { quarters: null, minutes: [], raw: [] };
  const a = ceilTo(from, MINUTE);
  const b = floorTo(to, MINUTE);
  if (a >= b) return { quarters: null, minutes: [], raw: [{ from, to }] };
  const raw = nonEmpty([
    { from, to: a },
    { from: b, to },
  ]);
  const c = ceilTo(a, QUARTER);
  const d = floorTo(b, QUARTER);
  if (c >= d) return { quarters: null, minutes: [{ from: a, to: b }], raw };
  return {
    quarters: { from: c, to: d },
    minutes: nonEmpty([
      { from: a, to: c },
      { from: d, to: b },
    ]),
    raw,
  };
}
