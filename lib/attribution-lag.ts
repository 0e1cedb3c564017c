// How far cache-miss attribution is behind ingest, so "not yet attributed" is never read as "no misses". Pure.

/** behindMs: now minus when the oldest request not yet attributed was stored (its event time; 0 when caught up). */
export type AttributionLag = { caughtUp: boolean; behindMs: number; oldestPendingAt: number | null };

/** The lag at `now` from the oldest unattributed request's storing (Unix ms; null when every request is attributed). */
export function attributionLag(oldestPendingAt: number | null, now: number): AttributionLag {
  if (oldestPendingAt === null) return { caughtUp: true, behindMs: 0, oldestPendingAt: null };
  return { caughtUp: false, behindMs: Math.max(0, now - oldestPendingAt), oldestPendingAt };
}

/** "attributing: 4 min behind" style text; under 10 s behind reads as "attributing: up to date". */
export function describeLag(lag: AttributionLag): string {
  if (lag.caughtUp || lag.behindMs < 10_000) return "attributing: up to date";
  const s = Math.round(lag.behindMs / 1000);
  if (s < 60) return `attributing: ${s} s behind`;
  const m = Math.round(s / 60);
  if (m < 120) return `attributing: ${m} min behind`;
  const h = Math.round(m / 60);
  if (h < 48) return `attributing: ${h} h behind`;
  return `attributing: ${Math.round(h / 24)} d behind`;
}
