import { doublePrecision, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ms } from "./columns";

// The storage-tier rollups on PostgreSQL; mirror db/sqlite/schema/tiers.ts column for column (kvbm_1m is written by the KVBM
// scrape rather than ingest). Sums of block and token counts are 64-bit.

/** KV blocks per worker, tier and minute from kv events (stored, removed, offloads, onboards, count after the minute). */
export const kvTiers1m = pgTable(
  "kv_tiers_1m",
  {
    workerId: text("worker_id").notNull(),
    minute: ms("minute").notNull(),
    tier: text("tier").notNull(),
    storedBlocks: ms("stored_blocks").notNull(),
    removedBlocks: ms("removed_blocks").notNull(),
    offloadedBlocks: ms("offloaded_blocks").notNull(),
    onboardedBlocks: ms("onboarded_blocks").notNull(),
    blocks: ms("blocks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workerId, t.minute, t.tier] }), index("kv_tiers_1m_minute").on(t.minute)],
);

/** The running block count per worker and tier that kv_tiers_1m.blocks is read from (never below 0). */
export const workerTierBlocks = pgTable(
  "worker_tier_blocks",
  {
    workerId: text("worker_id").notNull(),
    tier: text("tier").notNull(),
    blocks: ms("blocks").notNull(),
    ts: ms("ts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workerId, t.tier] })],
);

/** Per-tier cached tokens of requests per worker and minute (requests without a split count as device). */
export const requestTiers1m = pgTable(
  "request_tiers_1m",
  {
    workerId: text("worker_id").notNull(),
    minute: ms("minute").notNull(),
    inputTokens: ms("input_tokens").notNull(),
    deviceTokens: ms("device_tokens").notNull(),
    hostTokens: ms("host_tokens").notNull(),
    diskTokens: ms("disk_tokens").notNull(),
    sharedTokens: ms("shared_tokens").notNull(),
    prefetchedTokens: ms("prefetched_tokens").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workerId, t.minute] }), index("request_tiers_1m_minute").on(t.minute)],
);

/** The last counter sample per worker, to turn cumulative counters (decimal strings) into deltas across batches. */
export const workerCounters = pgTable("worker_counters", {
  workerId: text("worker_id").primaryKey(),
  ts: ms("ts").notNull(),
  prefixQueryTokens: text("prefix_query_tokens").notNull(),
  prefixHitTokens: text("prefix_hit_tokens").notNull(),
});

/**
 * KVBM readings per worker and minute from a Dynamo KVBM /metrics scrape: blocks moved in the minute (counter
 * increases) and the last host/disk hit rates (0–1; null when not served).
 */
export const kvbm1m = pgTable(
  "kvbm_1m",
  {
    workerId: text("worker_id").notNull(),
    minute: ms("minute").notNull(),
    offloadD2h: ms("offload_d2h").notNull(),
    offloadH2d: ms("offload_h2d").notNull(),
    offloadD2d: ms("offload_d2d").notNull(),
    onboardH2d: ms("onboard_h2d").notNull(),
    onboardD2d: ms("onboard_d2d").notNull(),
    hostHitRate: doublePrecision("host_hit_rate"),
    diskHitRate: doublePrecision("disk_hit_rate"),
  },
  (t) => [primaryKey({ columns: [t.workerId, t.minute] }), index("kvbm_1m_minute").on(t.minute)],
);
