import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * KV blocks per worker, tier and minute from kv events: blocks stored and removed, offloads (stored on a lower
 * tier), onboards (stored on device from a lower tier), and the tier's block count after the minute's last event.
 */
export const kvTiers1m = sqliteTable(
  "kv_tiers_1m",
  {
    workerId: text("worker_id").notNull(),
    minute: integer("minute").notNull(),
    tier: text("tier").notNull(),
    storedBlocks: integer("stored_blocks").notNull(),
    removedBlocks: integer("removed_blocks").notNull(),
    offloadedBlocks: integer("offloaded_blocks").notNull(),
    onboardedBlocks: integer("onboarded_blocks").notNull(),
    blocks: integer("blocks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workerId, t.minute, t.tier] }), index("kv_tiers_1m_minute").on(t.minute)],
);

/** The running block count per worker and tier that kv_tiers_1m.blocks is read from (never below 0). */
export const workerTierBlocks = sqliteTable(
  "worker_tier_blocks",
  {
    workerId: text("worker_id").notNull(),
    tier: text("tier").notNull(),
    blocks: integer("blocks").notNull(),
    ts: integer("ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workerId, t.tier] })],
);

/** Per-tier cached tokens of requests per worker and minute (requests without a split count as device). */
export const requestTiers1m = sqliteTable(
  "request_tiers_1m",
  {
    workerId: text("worker_id").notNull(),
    minute: integer("minute").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    deviceTokens: integer("device_tokens").notNull(),
    hostTokens: integer("host_tokens").notNull(),
    diskTokens: integer("disk_tokens").notNull(),
    sharedTokens: integer("shared_tokens").notNull(),
    prefetchedTokens: integer("prefetched_tokens").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workerId, t.minute] }), index("request_tiers_1m_minute").on(t.minute)],
);

/**
 * KVBM readings per worker and minute from a Dynamo KVBM /metrics scrape: blocks moved in the minute (counter
 * increases) and the last host/disk hit rates (0–1; null when not served).
 */
export const kvbm1m = sqliteTable(
  "kvbm_1m",
  {
    workerId: text("worker_id").notNull(),
    minute: integer("minute").notNull(),
    offloadD2h: integer("offload_d2h").notNull(),
    offloadH2d: integer("offload_h2d").notNull(),
    offloadD2d: integer("offload_d2d").notNull(),
    onboardH2d: integer("onboard_h2d").notNull(),
    onboardD2d: integer("onboard_d2d").notNull(),
    hostHitRate: real("host_hit_rate"),
    diskHitRate: real("disk_hit_rate"),
  },
  (t) => [primaryKey({ columns: [t.workerId, t.minute] }), index("kvbm_1m_minute").on(t.minute)],
);

/** The last counter sample per worker, to turn cumulative counters into deltas across batches. */
export const workerCounters = sqliteTable("worker_counters", {
  workerId: text("worker_id").primaryKey(),
  ts: integer("ts").notNull(),
  prefixQueryTokens: text("prefix_query_tokens").notNull(),
  prefixHitTokens: text("prefix_hit_tokens").notNull(),
});
