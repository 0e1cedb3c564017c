import { blob, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

// Maintained by the attribution job (server/jobs/attribution.ts), never by ingest. Hashes are u64 stored as signed i64 (or
// packed, db/sqlite/packed-keys.ts).

/**
 * Per block (its sequence hash), packed by db/sqlite/packed-keys.ts: a row per bucket of hashes (their top 16 bits),
 * each hash's entry its other 48 bits, then the attr_lists row holding every stored→removed interval of that block on
 * any worker (u32; 0: none; see db/sqlite/attribution-index.ts; blocks with the same history share one list), then the
 * first time the block (with its whole prefix) was cacheable anywhere (i40, null: not yet), in ms after attr_state's
 * 'epoch'.
 */
export const attrBlocks = sqliteTable("attr_blocks", {
  bucket: integer("bucket").primaryKey(),
  entries: blob("entries", { mode: "buffer" }).notNull(),
});

/** Interval lists, ~8 bytes per interval as varints, each stored once; refs: the attr_blocks rows pointing to it. */
export const attrLists = sqliteTable("attr_lists", {
  id: integer("id").primaryKey(),
  refs: integer("refs").notNull(),
  intervals: blob("intervals", { mode: "buffer" }).notNull(),
});

/** Small integer ids for worker ids and removal reasons inside attr_blocks intervals. */
export const attrNames = sqliteTable("attr_names", {
  id: integer("id").primaryKey(),
  name: text("name").notNull().unique(),
});

/** Every kv.cleared the job applied (worker as an attr_names id): closes, on read, what that worker held then. */
export const attrClears = sqliteTable("attr_clears", {
  worker: integer("worker").notNull(),
  at: integer("at").notNull(),
});

/**
 * First time a block's content (local hash) appeared in any prompt, in ms after attr_state's 'epoch' (i40), packed as
 * attr_blocks is.
 */
export const attrLocal = sqliteTable("attr_local", {
  bucket: integer("bucket").primaryKey(),
  entries: blob("entries", { mode: "buffer" }).notNull(),
});

/** The job's cursors (rowids of the raw tables it has read). */
export const attrState = sqliteTable("attr_state", {
  key: text("key").primaryKey(),
  value: integer("value").notNull(),
});
