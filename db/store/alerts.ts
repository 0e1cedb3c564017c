import { and, asc, desc, eq, gte, isNotNull, lt } from "drizzle-orm";
import type { Store } from "./store";

// Alerts on either engine: the states the leader keeps between evaluations (replaced whole after each one, in the
// transaction that adds what fired and resolved to the history), the history, and the receivers.

/** A pending or firing alert: one rule's series, the figure it was last judged on, and when it was last sent. */
export type StoredAlertState = {
  rule: string;
  key: string;
  labels: Record<string, string>;
  state: "pending" | "firing";
  /** When the condition started to hold, and when it started firing (null while pending); Unix ms. */
  activeAt: number;
  firedAt: number | null;
  /** The figure at the last evaluation, and the summary rendered with it. */
  value: number | null;
  summary: string;
  link: string;
  severity: "critical" | "warning" | "info";
  sentAt: number | null;
};

export type AlertEvent = {
  ts: number;
  rule: string;
  key: string;
  kind: "firing" | "resolved";
  labels: Record<string, string>;
  value: number | null;
  summary: string;
  link: string;
  severity: "critical" | "warning" | "info";
};

/** History rows one read returns at most. */
export const MAX_HISTORY = 1_000;

const labelsOf = (text: string): Record<string, string> => {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
};

/** Every pending and firing alert, by rule and key. */
export async function alertStates(s: Store): Promise<StoredAlertState[]> {
  const t = s.t.alertStates;
  const rows = await s.db.select().from(t).orderBy(asc(t.rule), asc(t.key));
  return rows.map((r) => ({
    ...r,
    labels: labelsOf(r.labels),
    state: r.state as StoredAlertState["state"],
    severity: r.severity as StoredAlertState["severity"],
  }));
}

/** After an evaluation: the states replace the kept ones and the events join the history, in one transaction. */
export async function saveEvaluation(
  s: Store,
  states: readonly StoredAlertState[],
  events: readonly AlertEvent[],
): Promise<void> {
  await s.tx(async (x) => {
    await x.db.delete(x.t.alertStates);
    for (let i = 0; i < states.length; i += 200)
      await x.db
        .insert(x.t.alertStates)
        .values(states.slice(i, i + 200).map((a) => ({ ...a, labels: JSON.stringify(a.labels) })));
    for (let i = 0; i < events.length; i += 200)
      await x.db
        .insert(x.t.alertEvents)
        .values(events.slice(i, i + 200).map((e) => ({ ...e, labels: JSON.stringify(e.labels) })));
  });
}

/** Firings and resolutions in [from, to), newest first, at most `limit` (≤ MAX_HISTORY), of one rule if named. */
export async function alertHistory(
  s: Store,
  from: number,
  to: number,
  limit = MAX_HISTORY,
  rule: string | null = null,
): Promise<AlertEvent[]> {
  const t = s.t.alertEvents;
  const rows = await s.db
    .select()
    .from(t)
    .where(and(gte(t.ts, from), lt(t.ts, to), rule === null ? undefined : eq(t.rule, rule)))
    .orderBy(desc(t.ts), desc(t.id))
    .limit(Math.max(1, Math.min(limit, MAX_HISTORY)));
  return rows.map(({ id: _id, ...r }) => ({
    ...r,
    labels: labelsOf(r.labels),
    kind: r.kind as AlertEvent["kind"],
    severity: r.severity as AlertEvent["severity"],
  }));
}

export type StoredReceiver = {
  id: string;
  name: string;
  kind: "alertmanager" | "webhook";
  url: string;
  /** The sealed secret as stored (null for Alertmanager). */
  secret: string | null;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
};

/** Every receiver, by name. */
export async function alertReceivers(s: Store): Promise<StoredReceiver[]> {
  const t = s.t.alertReceivers;
  const rows = await s.db.select().from(t).orderBy(asc(t.name), asc(t.id));
  return rows.map((r) => ({ ...r, kind: r.kind as StoredReceiver["kind"] }));
}

/** Add a receiver or change one (by id); the creation time of an existing one is kept. */
export async function upsertReceiver(
  s: Store,
  r: Omit<StoredReceiver, "createdAt" | "updatedAt">,
  now: number,
): Promise<void> {
  return s.tx(async (x) => {
    const t = x.t.alertReceivers;
    await x.db
      .insert(t)
      .values({ ...r, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({
        target: t.id,
        set: { name: r.name, kind: r.kind, url: r.url, secret: r.secret, enabled: r.enabled, updatedAt: now },
      });
  });
}

/** Remove a receiver; false when there was none. */
export async function removeReceiver(s: Store, id: string): Promise<boolean> {
  return s.tx(async (x) => {
    const t = x.t.alertReceivers;
    const gone = await x.db.delete(t).where(eq(t.id, id)).returning({ id: t.id });
    return gone.length > 0;
  });
}

/** Raw samples read at most for one preemption rate (an hour of 10-second samples of 64 workers is 23,000). */
const MAX_RATE_SAMPLES = 50_000;

/**
 * Preemptions per minute of each worker that reported the counter in [from, to): the counter's increase between its
 * first and last sample (a drop is a restart: the new value counts as the increase) over the time between them; null
 * for a worker with a single sample.
 */
export async function preemptionRates(s: Store, from: number, to: number): Promise<Map<string, number | null>> {
  const w = s.t.workerStats;
  const rows = await s.db
    .select({ workerId: w.workerId, ts: w.ts, n: w.preemptions })
    .from(w)
    .where(and(gte(w.ts, from), lt(w.ts, to), isNotNull(w.preemptions)))
    .orderBy(asc(w.workerId), asc(w.ts))
    .limit(MAX_RATE_SAMPLES);
  const out = new Map<string, number | null>();
  let cur: { id: string; first: number; last: number; prev: number; sum: number } | null = null;
  const close = () => {
    if (cur) out.set(cur.id, cur.last > cur.first ? (cur.sum * 60_000) / (cur.last - cur.first) : null);
  };
  for (const r of rows) {
    const n = Number(r.n);
    if (!Number.isFinite(n)) continue;
    if (!cur || cur.id !== r.workerId) {
      close();
      cur = { id: r.workerId, first: r.ts, last: r.ts, prev: n, sum: 0 };
      continue;
    }
    cur.sum += n >= cur.prev ? n - cur.prev : n;
    cur.prev = n;
    cur.last = r.ts;
  }
  close();
  return out;
}
