import type { Db } from "../client";

const PREFIX = "dropped_events:";

export type DroppedReport = { source: string; dropped: number; reportedAt: number };

/** Keep the highest cumulative dropped-events count a sender reported (senders report running totals). */
export function recordDroppedEvents(db: Db, source: string, dropped: number, now: number): void {
  db.$client
    .prepare(
      `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at WHERE CAST(excluded.value AS INTEGER) > CAST(value AS INTEGER)`,
    )
    .run(PREFIX + source, String(dropped), now);
}

/** Every sender that reported dropping events, most recent report first. */
export function droppedEventReports(db: Db): DroppedReport[] {
  const rows = db.$client
    .prepare(
      "SELECT key, value, updated_at AS reportedAt FROM settings WHERE key >= ? AND key < ? ORDER BY updated_at DESC LIMIT 50",
    )
    .all(PREFIX, PREFIX.slice(0, -1) + ";") as { key: string; value: string; reportedAt: number }[];
  return rows.map((r) => ({ source: r.key.slice(PREFIX.length), dropped: Number(r.value), reportedAt: r.reportedAt }));
}
