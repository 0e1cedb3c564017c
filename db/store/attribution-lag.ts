import { asc, eq, gt, sql } from "drizzle-orm";
import { bigint, pgTable, text as pgText } from "drizzle-orm/pg-core";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { attrState } from "../sqlite/schema";
import { attrStatePg } from "../pg/schema";
import type { Store } from "./store";

// How far the attribution job has judged, on either engine: its saved requests cursor (SQLite's rowid, PostgreSQL's
// rid) and the requests after it. Read by the overview's lag line and the impact panel.

const pgRequests = pgTable("requests", {
  rid: bigint("rid", { mode: "number" }).notNull(),
  ts: bigint("ts", { mode: "number" }).notNull(),
  arrivedAt: bigint("arrived_at", { mode: "number" }).notNull(),
  id: pgText("id").notNull(),
});
const sqliteRequests = sqliteTable("requests", {
  rid: integer("rowid").notNull(),
  ts: integer("ts").notNull(),
  arrivedAt: integer("arrived_at").notNull(),
  id: text("id").notNull(),
});

/** Requests looked at past the cursor (the oldest among them is the answer: they are in insertion order). */
const LOOK_AHEAD = 5_000;

/**
 * The earliest `arrivedAt` or `ts` (Unix ms) among the next 5,000 requests the job has not judged; null when none. A
 * request event is sent when the turn ends (its ts): the job's lag counts from there (see oldestUnattributed).
 */
export async function oldestUnattributedOf(s: Store, column: "arrivedAt" | "ts"): Promise<number | null> {
  const state = s.engine === "pg" ? attrStatePg : (attrState as unknown as typeof attrStatePg);
  const requests = s.engine === "pg" ? pgRequests : (sqliteRequests as unknown as typeof pgRequests);
  const [cursor] = await s.db.select({ v: state.value }).from(state).where(eq(state.key, "requests"));
  const next = s.db
    .select({ v: requests[column] })
    .from(requests)
    .where(gt(requests.rid, cursor?.v ?? 0))
    .orderBy(asc(requests.rid))
    .limit(LOOK_AHEAD)
    .as("next");
  const [row] = await s.db.select({ v: sql<number | null>`min(${next.v})`.mapWith(Number) }).from(next);
  return row?.v ?? null;
}
