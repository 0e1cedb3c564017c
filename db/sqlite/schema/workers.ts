import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Every cluster events came from. `id` is clusterId(name) (db/ingest/clusters.ts): event rows carry it as cluster_id;
 * 0 is "default", the cluster of events that name none (and of everything stored before clusters existed).
 */
export const clusters = sqliteTable("clusters", {
  id: integer("id").primaryKey(),
  name: text("name").notNull().unique(),
  firstSeen: integer("first_seen").notNull(),
});

/** One row per worker ever seen: identity and its latest known state. */
export const workers = sqliteTable("workers", {
  workerId: text("worker_id").primaryKey(),
  role: text("role"),
  model: text("model"),
  blockSize: integer("block_size"),
  kvTotalBlocks: integer("kv_total_blocks"),
  firstSeen: integer("first_seen").notNull(),
  lastSeen: integer("last_seen").notNull(),
  upAt: integer("up_at"),
  downAt: integer("down_at"),
  downReason: text("down_reason"),
});

/** worker.up / worker.down events as received. */
export const workerEvents = sqliteTable(
  "worker_events",
  {
    id: text("id").primaryKey(),
    ts: integer("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    kind: text("kind", { enum: ["worker.up", "worker.down"] }).notNull(),
    workerId: text("worker_id").notNull(),
    role: text("role"),
    model: text("model"),
    kvTotalBlocks: integer("kv_total_blocks"),
    blockSize: integer("block_size"),
    reason: text("reason"),
    source: text("source"),
  },
  (t) => [index("worker_events_worker_ts").on(t.workerId, t.ts), index("worker_events_ts").on(t.ts)],
);

/** Raw worker.stats samples; deleted after SWITCHYARD_RAW_RETENTION_HOURS. Counters are decimal strings. */
export const workerStats = sqliteTable(
  "worker_stats",
  {
    /** The event id: unique with ts (the `*_ts` index), as kv_events is; no index of its own. */
    id: text("id").notNull(),
    ts: integer("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    workerId: text("worker_id").notNull(),
    kvActiveBlocks: integer("kv_active_blocks").notNull(),
    kvTotalBlocks: integer("kv_total_blocks").notNull(),
    requestsRunning: integer("requests_running").notNull(),
    requestsWaiting: integer("requests_waiting").notNull(),
    prefixQueryTokens: text("prefix_query_tokens").notNull(),
    prefixHitTokens: text("prefix_hit_tokens").notNull(),
    /** Cumulative preemptions (decimal string, like the prefix counters); null when the source does not report them. */
    preemptions: text("preemptions"),
    /** Mean tokens per forward pass since the previous sample. */
    batchTokens: real("batch_tokens"),
    source: text("source"),
  },
  (t) => [uniqueIndex("worker_stats_ts").on(t.ts, t.id), index("worker_stats_worker_ts").on(t.workerId, t.ts)],
);
