import { index, integer, primaryKey, real, sqliteTable, text, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";

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

/**
 * Requests per arrival minute, cluster and model (ids: db/ingest/clusters.ts clusterId and modelId): what a page scoped
 * to a cluster or a model reads where the unscoped one reads requests_1m.
 */
export const requestsScope1m = sqliteTable(
  "requests_scope_1m",
  {
    minute: integer("minute").notNull(),
    clusterId: integer("cluster_id").notNull(),
    modelId: integer("model_id").notNull(),
    requests: integer("requests").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    cachedTokens: integer("cached_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    preemptions: integer("preemptions").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.clusterId, t.modelId] })],
);

/** request_ttft_1m per cluster and model as well (the scoped pages' TTFT percentiles). */
export const requestTtftScope1m = sqliteTable(
  "request_ttft_scope_1m",
  {
    minute: integer("minute").notNull(),
    clusterId: integer("cluster_id").notNull(),
    modelId: integer("model_id").notNull(),
    bucket: integer("bucket").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.clusterId, t.modelId, t.bucket] })],
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

/**
 * Per-worker, per-minute rollup of worker.stats, kept after raw samples age out.
 * Gauges as sums (divide by samples for the mean) and maxima; counters as deltas within the minute.
 */
export const workerStats1m = sqliteTable("worker_stats_1m", statsRollupColumns(), (t) => [
  primaryKey({ columns: [t.workerId, t.minute] }),
  index("worker_stats_1m_minute").on(...seriesCover(t)),
]);

/**
 * Bucket start, then worker, then every column the all-workers series and prefix totals read: a range scan of this
 * index answers them without visiting the table (an hour of 10 s rows for 64 workers is 23,000 rows).
 */
export function seriesCover<
  T extends {
    minute: AnySQLiteColumn;
    workerId: AnySQLiteColumn;
    samples: AnySQLiteColumn;
    kvActiveSum: AnySQLiteColumn;
    kvTotalSum: AnySQLiteColumn;
    prefixQueryDelta: AnySQLiteColumn;
    prefixHitDelta: AnySQLiteColumn;
  },
>(t: T) {
  return [t.minute, t.workerId, t.samples, t.kvActiveSum, t.kvTotalSum, t.prefixQueryDelta, t.prefixHitDelta] as const;
}

/**
 * Worker, then bucket start, then the columns of seriesCover: the all-workers chart reads each worker's range in
 * order (one seek per worker) and groups without sorting; one worker's chart reads its range without the table.
 */
export function workerCover<T extends Parameters<typeof seriesCover>[0]>(t: T) {
  const [minute, workerId, ...rest] = seriesCover(t);
  return [workerId, minute, ...rest] as const;
}

/** The columns of a worker-stats rollup table; the 1- and 15-minute tables share them (`minute`: bucket start). */
export function statsRollupColumns() {
  return {
    workerId: text("worker_id").notNull(),
    minute: integer("minute").notNull(),
    samples: integer("samples").notNull(),
    kvActiveSum: integer("kv_active_sum").notNull(),
    kvActiveMax: integer("kv_active_max").notNull(),
    kvTotalSum: integer("kv_total_sum").notNull(),
    runningSum: integer("running_sum").notNull(),
    runningMax: integer("running_max").notNull(),
    waitingSum: integer("waiting_sum").notNull(),
    waitingMax: integer("waiting_max").notNull(),
    prefixQueryDelta: integer("prefix_query_delta").notNull(),
    prefixHitDelta: integer("prefix_hit_delta").notNull(),
    counterResets: integer("counter_resets").notNull(),
    utilizationMax: real("utilization_max").notNull(),
    /** Smallest and largest cumulative preemption counter seen in the bucket (null: not reported). */
    preemptionsMin: integer("preemptions_min"),
    preemptionsMax: integer("preemptions_max"),
    /** Sum and count of batch-tokens-per-pass samples (divide for the mean). */
    batchTokensSum: real("batch_tokens_sum").notNull().default(0),
    batchSamples: integer("batch_samples").notNull().default(0),
  };
}
