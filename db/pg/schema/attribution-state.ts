import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { bytea, ms } from "./columns";

// The attribution job's own state on PostgreSQL (server/jobs/attribution-pg.ts): a simpler design than SQLite's
// (db/sqlite/schema/sessions.ts: shared interval lists, epoch-relative marks). A block's row holds its own intervals and its
// first-seen mark; times are Unix ms. Keys are the i64 sequence or local hashes. Never written by ingest.

/** The job's cursors ('kv', 'requests', 'tools': the seq or rid of the last row applied or judged). */
export const attrStatePg = pgTable("attr_state", {
  key: text("key").primaryKey(),
  value: ms("value").notNull(),
});

/** Worker ids and removal reasons as the small integers the intervals name them by. */
export const attrNamesPg = pgTable("attr_names", {
  id: integer("id").primaryKey(),
  name: text("name").notNull().unique(),
});

/** A kv.cleared per worker (closes, on read, every interval of that worker open when it was applied). */
export const attrClearsPg = pgTable(
  "attr_clears",
  { worker: integer("worker").notNull(), at: ms("at").notNull() },
  (t) => [primaryKey({ columns: [t.worker, t.at] })],
);

/**
 * Per sequence hash: its stored→removed intervals on any worker (db/sqlite/attribution-intervals.ts's encoding; null:
 * none) and when it was first cacheable (null: not yet).
 */
export const attrBlocksPg = pgTable("attr_blocks", {
  hash: bigint("hash", { mode: "bigint" }).primaryKey(),
  intervals: bytea("intervals"),
  firstAt: ms("first_at"),
});

/** Per local hash: when a block's content first appeared in any prompt. */
export const attrLocalPg = pgTable(
  "attr_local",
  { hash: bigint("hash", { mode: "bigint" }).primaryKey(), firstAt: ms("first_at").notNull() },
  (t) => [index("attr_local_first").on(t.firstAt)],
);
