import { clockFields } from "@/components/format";
// Time buckets for charts. Pure. A bucket with no data is null (a gap), never 0.

/** Bucket start times (Unix ms) covering [from, to), aligned to multiples of `step` as the server buckets them. */
export function bucketStarts(from: number, to: number, step: number): number[] {
  if (!(step > 0) || to <= from) return [];
  const out: number[] = [];
  for (let t = from - (from % step); t < to; t += step) out.push(t);
  return out;
}

/** One value per bucket start: the value of the point at that start, null where there is none (or its value is null). */
export function fillBuckets<P extends { t: number }>(
  starts: readonly number[],
  points: readonly P[],
  value: (p: P) => number | null,
): (number | null)[] {
  const at = new Map(points.map((p) => [p.t, value(p)]));
  return starts.map((t) => at.get(t) ?? null);
}

/**
 * One value per bucket start from a column pair: `values[i]` is the value at bucket start `t[i]`; a start not in `t`
 * (or whose value is null) is null. `t` in any order; starts without a match are gaps.
 */
export function fillColumn(
  starts: readonly number[],
  t: readonly number[],
  values: readonly (number | null)[],
): (number | null)[] {
  const at = new Map<number, number | null>();
  for (let i = 0; i < t.length; i++) at.set(t[i]!, values[i] ?? null);
  return starts.map((s) => at.get(s) ?? null);
}

/** A ratio (0..1) as a percentage rounded to 0.1, keeping null. */
export function toPercent(v: number | null): number | null {
  return v === null ? null : Math.round(v * 1000) / 10;
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * An axis label for a bucket start: "HH:MM" (with ":SS" below a minute), prefixed by "MM-DD" when buckets are hours
 * or longer. `timeZone` defaults to the viewer's; tests pass "UTC".
 */
export function formatTick(t: number, step: number, timeZone?: string): string {
  const parts = clockFields(t, timeZone);
  const hm = `${pad(Number(parts.hour))}:${parts.minute}`;
  if (step < 60_000) return `${hm}:${parts.second}`;
  if (step >= 3_600_000) return `${parts.month}-${parts.day} ${hm}`;
  return hm;
}

const SOURCES = {
  raw: "raw samples",
  rollup: "per-minute rollups",
  "10s": "10-second rollups",
  "30s": "30-second rollups",
  "1m": "per-minute rollups",
  "5m": "5-minute rollups",
  "15m": "15-minute rollups",
};

/** "15 min buckets from 15-minute rollups", "10 s buckets from raw samples": what a chart's points are. */
export function describeBuckets(step: number, source: keyof typeof SOURCES): string {
  const size =
    step >= 3_600_000 ? `${step / 3_600_000} h` : step >= 60_000 ? `${step / 60_000} min` : `${step / 1000} s`;
  return `${size} buckets from ${SOURCES[source]}`;
}
