import { desc, like } from "drizzle-orm";
import type { Store } from "./store";

// The senders' dropped-events reports: settings rows under one key prefix, written by ingest on either engine
// (db/queries/sources.ts, db/pg/sources.ts). A key compared by LIKE, not by range: PostgreSQL's collation may not
// order ':' before ';'.

const PREFIX = "dropped_events:";

export type DroppedReport = { source: string; dropped: number; reportedAt: number };

/** Every sender that reported dropping events, most recent report first (at most 50). */
export async function droppedEventReports(store: Store): Promise<DroppedReport[]> {
  const t = store.t.settings;
  const rows = await store.db
    .select({ key: t.key, value: t.value, reportedAt: t.updatedAt })
    .from(t)
    .where(like(t.key, `${PREFIX}%`))
    .orderBy(desc(t.updatedAt))
    .limit(50);
  return rows.map((r) => ({ source: r.key.slice(PREFIX.length), dropped: Number(r.value), reportedAt: r.reportedAt }));
}
