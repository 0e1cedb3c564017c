import type { Db } from "./client";

const PREFIX = "dropped_events:";

/** Keep the highest cumulative dropped-events count a sender reported (senders report running totals). */
export function recordDroppedEvents(db: Db, source: string, dropped: number, now: number): void {
  db.$client
    .prepare(
      `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at WHERE CAST(excluded.value AS INTEGER) > CAST(value AS INTEGER)`,
    )
    .run(PREFIX + source, String(dropped), now);
}
