import { blob, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * kv.stored / kv.removed / kv.cleared; hashes are 8-byte big-endian u64 blobs (older rows: decimal text; chain-codec
 * reads both). A list that repeats hashes earlier events hold keeps only its other hashes in block_hashes, and
 * block_refs says where the rest are (db/kv-list-codec.ts; read through db/queries/kv-lists.ts). Raw: ages out.
 */
export const kvEvents = sqliteTable(
  "kv_events",
  {
    id: text("id").primaryKey(),
    ts: integer("ts").notNull(),
    op: text("op", { enum: ["stored", "removed", "cleared"] }).notNull(),
    workerId: text("worker_id").notNull(),
    blockCount: integer("block_count").notNull(),
    blockHashes: blob("block_hashes", { mode: "buffer" }),
    parentHash: blob("parent_hash", { mode: "buffer" }),
    localHashes: blob("local_hashes", { mode: "buffer" }),
    retentionClass: text("retention_class"),
    sessionId: text("session_id"),
    reason: text("reason"),
    source: text("source"),
    /** device | host | disk | shared (null: device, as sent before tiers existed). */
    storageTier: text("storage_tier"),
    /** On a stored-on-device event: the tier the blocks were brought back from. */
    onboardedFrom: text("onboarded_from"),
    /** Null: block_hashes is the whole list. Else the program interleaving it with references to earlier events. */
    blockRefs: blob("block_refs", { mode: "buffer" }),
  },
  (t) => [index("kv_events_ts").on(t.ts), index("kv_events_worker_ts").on(t.workerId, t.ts)],
);
