// Timestamps for tables. Pure.

const pad = (n: number) => String(n).padStart(2, "0");

/** "HH:MM:SS", prefixed by "YYYY-MM-DD" unless on the same day as `now`; `timeZone` defaults to the viewer's (tests pass "UTC"). */
export function formatWhen(ts: number, now: number, timeZone?: string): string {
  const parts = (ms: number) =>
    Object.fromEntries(
      new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" })
        .formatToParts(new Date(ms))
        .map((p) => [p.type, p.value]),
    ) as Record<string, string>;
  const p = parts(ts);
  const n = parts(now);
  const time = `${pad(Number(p.hour))}:${p.minute}:${p.second}`;
  return p.year === n.year && p.month === n.month && p.day === n.day ? time : `${p.year}-${p.month}-${p.day} ${time}`;
}
