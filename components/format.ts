// The one place values are written for people: times, durations, percentages, ages, counts, sizes. Pure.
// No data (null or undefined) always renders as NO_DATA, never as 0. Times are in the viewer's time zone unless a
// zone is passed (tests pass "UTC"); callers render them on the client, where that zone is the viewer's.

/** The no-data mark: an em dash. */
export const NO_DATA = "—";

type Maybe = number | null | undefined;
const missing = (v: Maybe): v is null | undefined => v === null || v === undefined || !Number.isFinite(v);
const pad = (n: number) => String(n).padStart(2, "0");

/** A 0..1 ratio as "89.9%" (no space before the sign). */
export function formatPercent(ratio: Maybe, digits = 1): string {
  return missing(ratio) ? NO_DATA : `${(ratio * 100).toFixed(digits)}%`;
}

/** A duration in ms: "168 ms" below 10 s, "12.3 s" below 2 min, "14 min" below 2 h, "3.5 h" beyond. */
export function formatMs(ms: Maybe): string {
  if (missing(ms)) return NO_DATA;
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** Two durations as one value ("20 / 135 ms" when both are in ms, else "8 ms / 12.3 s"): p50 / p95 on a card. */
export function formatMsPair(a: Maybe, b: Maybe): string {
  const [x, y] = [formatMs(a), formatMs(b)];
  return x.endsWith(" ms") && y.endsWith(" ms") ? `${x.slice(0, -3)} / ${y}` : `${x} / ${y}`;
}

/** A value already in percent points (0..100, as charts hold it) as "95.0%". */
export function formatPercentPoints(points: Maybe, digits = 1): string {
  return missing(points) ? NO_DATA : `${points.toFixed(digits)}%`;
}

/** A duration in seconds (as Prometheus reports latencies), written as formatMs writes it. */
export function formatSeconds(s: Maybe): string {
  return missing(s) ? NO_DATA : formatMs(s * 1000);
}

/** A per-second rate with precision that shrinks as it grows: "0.02", "12.3", "1234". */
export function formatRate(perSecond: Maybe): string {
  if (missing(perSecond)) return NO_DATA;
  if (perSecond >= 100) return perSecond.toFixed(0);
  if (perSecond >= 10) return perSecond.toFixed(1);
  return perSecond.toFixed(2);
}

/** A count (tokens, blocks, requests) with thousands separators: "1,234,567". */
export function formatCount(v: Maybe): string {
  return missing(v) ? NO_DATA : v.toLocaleString("en-US");
}

/** A fractional number (a routing cost, a threshold) with fixed digits: "12.50"; integers keep separators. */
export function formatDecimal(v: Maybe, digits = 2): string {
  if (missing(v)) return NO_DATA;
  return Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(digits);
}

/** An axis figure in few characters: "950", "12k", "1.2M". */
export function formatCompact(v: Maybe): string {
  if (missing(v)) return NO_DATA;
  if (Math.abs(v) >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (Math.abs(v) >= 1e3) return `${Math.round(v / 1e3)}k`;
  return String(v);
}

/** A size in bytes: "512 B", "12 KiB", "3.4 MiB", "1.2 GiB". */
export function formatBytes(n: Maybe): string {
  if (missing(n)) return NO_DATA;
  if (n < 1024) return `${Math.round(n)} B`;
  if (n < 1024 ** 2) return `${Math.round(n / 1024)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(1)} GiB`;
}

/** "3 aggregated · 1 prefill" in a stable role order; NO_DATA when empty. */
export function formatRoles(byRole: Record<string, number>): string {
  const order = ["aggregated", "prefill", "decode"];
  const rank = (role: string) => (order.includes(role) ? order.indexOf(role) : order.length);
  const parts = Object.entries(byRole)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([role, n]) => `${n} ${role}`);
  return parts.length ? parts.join(" · ") : NO_DATA;
}

/** One formatter per time zone ("" the viewer's): building an Intl.DateTimeFormat costs far more than using one, and a
 * page of charts formats thousands of ticks. A viewer sees one or two zones; the map is cleared past MAX_ZONES. */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_ZONES = 16;

function formatterFor(timeZone?: string): Intl.DateTimeFormat {
  const key = timeZone ?? "";
  let f = formatters.get(key);
  if (!f) {
    if (formatters.size >= MAX_ZONES) formatters.clear();
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(key, f);
  }
  return f;
}

/** Calendar and clock fields of a Unix-ms instant in a zone (24-hour clock). */
export function clockFields(ms: number, timeZone?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(ms))) out[p.type] = p.value;
  return out;
}

/** "YYYY-MM-DD HH:MM:SS" on a 24-hour clock. */
export function formatDateTime(ts: Maybe, timeZone?: string): string {
  if (missing(ts)) return NO_DATA;
  const p = clockFields(ts, timeZone);
  return `${p.year}-${p.month}-${p.day} ${pad(Number(p.hour))}:${p.minute}:${p.second}`;
}

/** A table's time: "HH:MM:SS", prefixed by "YYYY-MM-DD" unless it is on the same day as `now`. */
export function formatTime(ts: Maybe, now: number, timeZone?: string): string {
  if (missing(ts)) return NO_DATA;
  const p = clockFields(ts, timeZone);
  const n = clockFields(now, timeZone);
  const time = `${pad(Number(p.hour))}:${p.minute}:${p.second}`;
  return p.year === n.year && p.month === n.month && p.day === n.day ? time : `${p.year}-${p.month}-${p.day} ${time}`;
}

/** A shown range: "2025-11-29 11:00:00 – 12:00:00" (the end's date only when it differs). */
export function formatRange(from: number, to: number, timeZone?: string): string {
  return `${formatDateTime(from, timeZone)} – ${formatTime(to, from, timeZone)}`;
}

/** "just now", "42 s ago", "5 min ago", "3 h ago", "2 d ago"; a future time reads "in 8 s". */
export function formatAgo(at: Maybe, now: number): string {
  if (missing(at)) return NO_DATA;
  const delta = Math.round((now - at) / 1000);
  const abs = Math.abs(delta);
  if (abs < 2) return "just now";
  const [n, unit] =
    abs < 60
      ? [abs, "s"]
      : abs < 3600
        ? [Math.floor(abs / 60), "min"]
        : abs < 86_400
          ? [Math.floor(abs / 3600), "h"]
          : [Math.floor(abs / 86_400), "d"];
  return delta >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

/** The viewer's IANA time zone ("Europe/Berlin", "UTC"), as the formatters above use by default. */
export function viewerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
