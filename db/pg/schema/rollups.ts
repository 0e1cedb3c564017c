import { doublePrecision, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { bytea, ms } from "./columns";

// The rollups the pages read, on PostgreSQL; mirror db/sqlite/schema/rollups.ts and worker_stats_1m column for column.
// Bucket starts (`minute`) are Unix ms; sums of token counts are 64-bit.

/** A 64-bit sum (token or block counts over many rows), a number in code. */
const big = (name: string) => ms(name);

/** The columns of a worker-stats rollup (`minute`: bucket start), as statsRollupColumns on SQLite. */
function statsRollupColumns() {
  return {
    workerId: text("worker_id").notNull(),
    minute: ms("minute").notNull(),
    samples: integer("samples").notNull(),
    kvActiveSum: big("kv_active_sum").notNull(),
    kvActiveMax: integer("kv_active_max").notNull(),
    kvTotalSum: big("kv_total_sum").notNull(),
    runningSum: big("running_sum").notNull(),
    runningMax: integer("running_max").notNull(),
    waitingSum: big("waiting_sum").notNull(),
    waitingMax: integer("waiting_max").notNull(),
    prefixQueryDelta: big("prefix_query_delta").notNull(),
    prefixHitDelta: big("prefix_hit_delta").notNull(),
    counterResets: integer("counter_resets").notNull(),
    utilizationMax: doublePrecision("utilization_max").notNull(),
    preemptionsMin: big("preemptions_min"),
    preemptionsMax: big("preemptions_max"),
    batchTokensSum: doublePrecision("batch_tokens_sum").notNull().default(0),
    batchSamples: integer("batch_samples").notNull().default(0),
  };
}

/**
 * A stats rollup keyed by (worker, bucket), with the bucket-start index the all-workers reads scan. (SQLite's 10- and
 * 30-second rollups also have a (worker, bucket, …) index its chart reads seek per worker; PostgreSQL's planner does
 * better hashing the bucket-start index's rows: see statsTable.)
 */
function statsRollup(name: string) {
  return pgTable(name, statsRollupColumns(), (t) => [
    primaryKey({ columns: [t.workerId, t.minute] }),
    index(`${name}_minute`).on(t.minute),
  ]);
}

export const workerStats10s = statsRollup("worker_stats_10s");
export const workerStats30s = statsRollup("worker_stats_30s");
export const workerStats1m = statsRollup("worker_stats_1m");
export const workerStats5m = statsRollup("worker_stats_5m");
export const workerStats15m = statsRollup("worker_stats_15m");

/**
 * The 30-second rollup's chart columns packed per worker and 5-minute chunk, on PostgreSQL only (db/pg/chart-chunks.ts):
 * `t` which buckets have rows (the chunk's start and a bitmap of its ten buckets; chunks packed earlier: each bucket's
 * start as an 8-byte integer), `util` and `hit` the KV-utilization and prefix-hit ratios as 8-byte doubles (NaN:
 * none), in time order. The hour's chart reads 12 such rows a worker and the rollup's own rows
 * only past the sealed horizon (workerChartSeal), where its per-row work had been most of the query.
 */
export const workerChart30s = pgTable(
  "worker_chart_30s",
  {
    chunk: ms("chunk").notNull(),
    workerId: text("worker_id").notNull(),
    t: bytea("t").notNull(),
    util: bytea("util").notNull(),
    hit: bytea("hit").notNull(),
  },
  (t) => [primaryKey({ columns: [t.chunk, t.workerId] })],
);

/** How far chart chunks are sealed, per rollup (`sealed_until`, Unix ms: every chunk before it is packed). */
export const workerChartSeal = pgTable("worker_chart_seal", {
  resolution: text("resolution").primaryKey(),
  sealedUntil: ms("sealed_until").notNull(),
});

/** Requests per arrival minute: counts and token sums. */
export const requests1m = pgTable("requests_1m", {
  minute: ms("minute").primaryKey(),
  requests: integer("requests").notNull(),
  inputTokens: big("input_tokens").notNull(),
  cachedTokens: big("cached_tokens").notNull(),
  outputTokens: big("output_tokens").notNull(),
  cachedHostTokens: big("cached_host_tokens").notNull().default(0),
  cachedDiskTokens: big("cached_disk_tokens").notNull().default(0),
  cachedSharedTokens: big("cached_shared_tokens").notNull().default(0),
  prefetchedTokens: big("prefetched_tokens").notNull().default(0),
  preemptions: integer("preemptions").notNull().default(0),
});

/** Inter-token latency histograms per arrival minute and worker (`stat` 0: request means, 1: request p95s). */
export const requestItl1m = pgTable(
  "request_itl_1m",
  {
    minute: ms("minute").notNull(),
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

/** TTFT histogram per arrival minute. */
export const requestTtft1m = pgTable(
  "request_ttft_1m",
  {
    minute: ms("minute").notNull(),
    bucket: integer("bucket").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.bucket] })],
);

/** Requests per arrival minute, cluster and model (as SQLite's requests_scope_1m). */
export const requestsScope1m = pgTable(
  "requests_scope_1m",
  {
    minute: ms("minute").notNull(),
    clusterId: integer("cluster_id").notNull(),
    modelId: integer("model_id").notNull(),
    requests: integer("requests").notNull(),
    inputTokens: big("input_tokens").notNull(),
    cachedTokens: big("cached_tokens").notNull(),
    outputTokens: big("output_tokens").notNull(),
    preemptions: integer("preemptions").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.clusterId, t.modelId] })],
);

/** TTFT histogram per arrival minute, cluster and model. */
export const requestTtftScope1m = pgTable(
  "request_ttft_scope_1m",
  {
    minute: ms("minute").notNull(),
    clusterId: integer("cluster_id").notNull(),
    modelId: integer("model_id").notNull(),
    bucket: integer("bucket").notNull(),
    n: integer("n").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.clusterId, t.modelId, t.bucket] })],
);

/** Routing decisions per minute and chosen worker. */
export const routeDecisions1m = pgTable(
  "route_decisions_1m",
  {
    minute: ms("minute").notNull(),
    chosenWorkerId: text("chosen_worker_id").notNull(),
    decisions: integer("decisions").notNull(),
    promptBlocks: big("prompt_blocks").notNull(),
    lostBlocks: big("lost_blocks").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.minute, t.chosenWorkerId] }),
    index("route_decisions_1m_worker").on(t.chosenWorkerId, t.minute),
  ],
);

/** route_decisions_1m summed per 15 minutes. */
export const routeDecisions15m = pgTable(
  "route_decisions_15m",
  {
    minute: ms("minute").notNull(),
    chosenWorkerId: text("chosen_worker_id").notNull(),
    decisions: integer("decisions").notNull(),
    promptBlocks: big("prompt_blocks").notNull(),
    lostBlocks: big("lost_blocks").notNull(),
  },
  (t) => [primaryKey({ columns: [t.minute, t.chosenWorkerId] })],
);
