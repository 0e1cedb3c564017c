import { sql } from "drizzle-orm";
import { blob, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { decodeSql, KV_OPS, KV_REASONS } from "../../codecs/kv-codes";

/**
 * kv.stored / kv.removed / kv.cleared; hashes are 8-byte big-endian u64 blobs (older rows: decimal text; codecs/chains.ts
 * reads both). A list that repeats hashes earlier events hold keeps only its other hashes in block_hashes, and
 * block_refs says where the rest are (db/codecs/kv-lists.ts; read through db/sqlite/kv-lists.ts). Raw: ages out.
 * A kv.stored event's session_id is validated, not stored: nothing reads it (a turn's session is its request's).
 */
export const kvEvents = sqliteTable(
  "kv_events",
  {
    /** The event id of rows stored before id_key (null since: an id is only ever matched, never read back). */
    id: text("id"),
    /** 48-bit hash of the event id (db/ingest/kv-rows.ts): with ts, what makes a re-sent event a duplicate. */
    idKey: integer("id_key"),
    ts: integer("ts").notNull(),
    /** The op as a code (db/codecs/kv-codes.ts); read `op`, its text, generated from it and not stored. */
    opCode: integer("op_code").notNull(),
    op: text("op", { enum: KV_OPS }).generatedAlwaysAs(sql.raw(decodeSql("op_code", KV_OPS)), { mode: "virtual" }),
    workerId: text("worker_id").notNull(),
    blockCount: integer("block_count").notNull(),
    blockHashes: blob("block_hashes", { mode: "buffer" }),
    parentHash: blob("parent_hash", { mode: "buffer" }),
    localHashes: blob("local_hashes", { mode: "buffer" }),
    retentionClass: text("retention_class"),
    /** The removal reason as a code (db/codecs/kv-codes.ts; null on stored rows); read `reason`, generated from it. */
    reasonCode: integer("reason_code"),
    reason: text("reason").generatedAlwaysAs(sql.raw(decodeSql("reason_code", KV_REASONS)), { mode: "virtual" }),
    source: text("source"),
    /** device | host | disk | shared (null: device, as sent before tiers existed). */
    storageTier: text("storage_tier"),
    /** On a stored-on-device event: the tier the blocks were brought back from. */
    onboardedFrom: text("onboarded_from"),
    /** Null: block_hashes is the whole list. Else the program interleaving it with references to earlier events. */
    blockRefs: blob("block_refs", { mode: "buffer" }),
  },
  // (ts, id_key) serves time ranges and idempotency in one index: an event id's text and its own index were a fifth of
  // the table. Rows stored before it have a null id_key (their ids stay in id, unindexed).
  (t) => [uniqueIndex("kv_events_ts_key").on(t.ts, t.idKey), index("kv_events_worker_ts").on(t.workerId, t.ts)],
);
