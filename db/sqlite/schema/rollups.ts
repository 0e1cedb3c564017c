import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { seriesCover, statsRollupColumns, workerCover } from "./workers";

/** Requests per arrival minute: counts and token sums, for views over hours and days. */
export const requests1m = sqliteTable("requests_1m", {
  minute: integer("minute").primaryKey(),
  requests: integer("requests").notNull(),
  inputTokens: integer("input_tokens").notNull(),
  cachedTokens: integer("cached_tokens").notNull(),
  outputTokens: integer("output_tokens").notNull(),
  /** Cached tokens served from lower tiers (device = cached − these); requests without a tier split count as device. */
  cachedHostTokens: integer("cached_host_tokens").notNull().default(0),
  cachedDiskTokens: integer("cached_disk_tokens").notNull().default(0),
  cachedSharedTokens: integer("cached_shared_tokens").notNull().default(0),
  prefetchedTokens: integer("prefetched_tokens").notNull().default(0),
  /** Preemptions of the minute's requests. */
  preemptions: integer("preemptions").notNull().default(0),
});

/**
 * Inter-token latency histograms per arrival minute and worker (log buckets as TTFT): `stat` 0 counts each
 * request's mean ITL, 1 its p95 ITL. Overview ITL p50 is the median of request means, ITL p95 the p95 of request p95s.
 */
export const requestItl1m = sqliteTable(
  "request_itl_1m",
  {
    minute: integer("minute").notNull(),
    workerId: text("worker_id").notNull(),
    stat: integer("stat").notNull(),
    bucket: integer("bucket").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.minute, t.workerId, t.stat, t.bucket] }),
    index("request_itl_1m_worker").on(t.workerId, t.minute),
  ],
);

/** TTFT histogram per arrival minute (log buckets, see server/analysis/histogram.ts): mergeable percentiles. */
export const requestTtft1m = sqliteTable(
  "request_ttft_1m",
  {
    minute: integer("minute").notNull(),
    bucket: integer("bucket").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.bucket] })],
);

/** Routing decisions per minute and chosen worker: count, prompt blocks and blocks lost to routing (best − chosen overlap). */
export const routeDecisions1m = sqliteTable(
  "route_decisions_1m",
  {
    minute: integer("minute").notNull(),
    chosenWorkerId: text("chosen_worker_id").notNull(),
    decisions: integer("decisions").notNull(),
    promptBlocks: integer("prompt_blocks").notNull(),
    lostBlocks: integer("lost_blocks").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.minute, t.chosenWorkerId] }),
    index("route_decisions_1m_worker").on(t.chosenWorkerId, t.minute),
  ],
);

/**
 * worker.stats summed per worker and 10 seconds (`minute` is the bucket start; same columns as worker_stats_1m): what
 * charts over an hour or less read instead of raw samples. Ages out with the raw samples.
 */
export const workerStats10s = sqliteTable("worker_stats_10s", statsRollupColumns(), (t) => [
  primaryKey({ columns: [t.workerId, t.minute] }),
  index("worker_stats_10s_minute").on(...seriesCover(t)),
  index("worker_stats_10s_worker").on(...workerCover(t)),
]);

/** worker_stats_10s summed per 30 seconds: the 1 h chart's buckets, read without grouping. Ages out with the raw samples. */
export const workerStats30s = sqliteTable("worker_stats_30s", statsRollupColumns(), (t) => [
  primaryKey({ columns: [t.workerId, t.minute] }),
  index("worker_stats_30s_minute").on(...seriesCover(t)),
  index("worker_stats_30s_worker").on(...workerCover(t)),
]);

/** worker_stats_1m summed per 5 minutes (`minute` is the bucket start): the 6 h chart's buckets, read without grouping. */
export const workerStats5m = sqliteTable("worker_stats_5m", statsRollupColumns(), (t) => [
  primaryKey({ columns: [t.workerId, t.minute] }),
  index("worker_stats_5m_minute").on(...seriesCover(t)),
]);

/** worker_stats_1m summed per 15 minutes (`minute` is the bucket start): what views over 6 h and more read. */
export const workerStats15m = sqliteTable("worker_stats_15m", statsRollupColumns(), (t) => [
  primaryKey({ columns: [t.workerId, t.minute] }),
  index("worker_stats_15m_minute").on(t.minute),
]);

/** route_decisions_1m summed per 15 minutes (`minute` is the bucket start). */
export const routeDecisions15m = sqliteTable(
  "route_decisions_15m",
  {
    minute: integer("minute").notNull(),
    chosenWorkerId: text("chosen_worker_id").notNull(),
    decisions: integer("decisions").notNull(),
    promptBlocks: integer("prompt_blocks").notNull(),
    lostBlocks: integer("lost_blocks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.chosenWorkerId] })],
);
