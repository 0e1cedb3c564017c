import { asc, desc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../client";
import { attrState, requests, rolloutStatus, sourceStatus } from "../schema";

// Rows for Switchyard's own metrics, read at scrape time. Every list is bounded.

const LIMIT = 500;

/** How far the attribution job has read requests: its cursor (a rowid), the newest request and the first one after the cursor. */
export type AttributionProgress = {
  cursor: number;
  newestRowid: number | null;
  newestArrivedAt: number | null;
  firstPendingArrivedAt: number | null;
};

export function attributionProgress(db: Db): AttributionProgress {
  const cursor =
    db.select({ value: attrState.value }).from(attrState).where(eq(attrState.key, "requests")).get()?.value ?? 0;
  const rowid = sql<number>`${requests}.rowid`;
  const newest = db.select({ rowid, arrivedAt: requests.arrivedAt }).from(requests).orderBy(desc(rowid)).limit(1).get();
  const pending = db
    .select({ arrivedAt: requests.arrivedAt })
    .from(requests)
    .where(gt(rowid, cursor))
    .orderBy(asc(rowid))
    .limit(1)
    .get();
  return {
    cursor,
    newestRowid: newest?.rowid ?? null,
    newestArrivedAt: newest?.arrivedAt ?? null,
    firstPendingArrivedAt: pending?.arrivedAt ?? null,
  };
}

/** Rollout state per policy target and kind. */
export function rolloutStates(db: Db): { targetId: string; kind: string; state: string }[] {
  return db
    .select({ targetId: rolloutStatus.targetId, kind: rolloutStatus.kind, state: rolloutStatus.state })
    .from(rolloutStatus)
    .orderBy(asc(rolloutStatus.targetId), asc(rolloutStatus.kind))
    .limit(LIMIT)
    .all();
}

/** Error and success record of each source. */
export function sourceHealth(
  db: Db,
): { id: string; kind: string; errorCount: number; lastSuccessAt: number | null; lastErrorAt: number | null }[] {
  return db
    .select({
      id: sourceStatus.id,
      kind: sourceStatus.kind,
      errorCount: sourceStatus.errorCount,
      lastSuccessAt: sourceStatus.lastSuccessAt,
      lastErrorAt: sourceStatus.lastErrorAt,
    })
    .from(sourceStatus)
    .orderBy(asc(sourceStatus.id))
    .limit(LIMIT)
    .all();
}

/** Bytes in the main database file (pages in use and free), without its write-ahead log. */
export function databaseFileBytes(db: Db): number {
  const pages = db.$client.pragma("page_count", { simple: true }) as number;
  const size = db.$client.pragma("page_size", { simple: true }) as number;
  return pages * size;
}
