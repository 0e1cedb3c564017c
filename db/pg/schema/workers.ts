import { doublePrecision, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ms } from "./columns";

// Workers and their raw samples on PostgreSQL; mirrors db/sqlite/schema/workers.ts column for column.

/**
 * Every cluster events came from. `id` is clusterId(name) (db/ingest/clusters.ts): event rows carry it as cluster_id;
 * 0 is "default", the cluster of events that name none (and of everything stored before clusters existed).
 */
export const clusters = pgTable("clusters", {
  id: integer("id").primaryKey(),
  name: text("name").notNull().unique(),
  firstSeen: ms("first_seen").notNull(),
});

/** One row per worker ever seen: identity and its latest known state. */
export const workers = pgTable("workers", {
  workerId: text("worker_id").primaryKey(),
  role: text("role"),
  model: text("model"),
  blockSize: integer("block_size"),
  kvTotalBlocks: integer("kv_total_blocks"),
  firstSeen: ms("first_seen").notNull(),
  lastSeen: ms("last_seen").notNull(),
  upAt: ms("up_at"),
  downAt: ms("down_at"),
  downReason: text("down_reason"),
});

/** worker.up / worker.down events as received. Partitioned by day on ts (the key must hold ts: (id, ts)). */
export const workerEvents = pgTable(
  "worker_events",
  {
    id: text("id").notNull(),
    ts: ms("ts").notNull(),
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
  (t) => [primaryKey({ columns: [t.id, t.ts] }), index("worker_events_worker_ts").on(t.workerId, t.ts)],
);

/** Raw worker.stats samples, partitioned by day on ts. Counters are decimal strings. */
export const workerStats = pgTable(
  "worker_stats",
  {
    id: text("id").notNull(),
    ts: ms("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    workerId: text("worker_id").notNull(),
    kvActiveBlocks: integer("kv_active_blocks").notNull(),
    kvTotalBlocks: integer("kv_total_blocks").notNull(),
    requestsRunning: integer("requests_running").notNull(),
    requestsWaiting: integer("requests_waiting").notNull(),
    prefixQueryTokens: text("prefix_query_tokens").notNull(),
    prefixHitTokens: text("prefix_hit_tokens").notNull(),
    preemptions: text("preemptions"),
    batchTokens: doublePrecision("batch_tokens"),
    source: text("source"),
  },
  // worker_stats_ts: the all-workers reads by time (the charts' raw buckets, one query per bucket); without it each
  // scanned the day's whole partition (~5 s for an hour's overview trends over 64 workers).
  (t) => [
    primaryKey({ columns: [t.id, t.ts] }),
    index("worker_stats_worker_ts").on(t.workerId, t.ts),
    index("worker_stats_ts").on(t.ts),
  ],
);
