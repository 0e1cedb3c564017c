import {
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
  type AnySQLiteColumn,
} from "drizzle-orm/sqlite-core";

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

/** The last counter sample per worker, to turn cumulative counters into deltas across batches. */
export const workerCounters = sqliteTable("worker_counters", {
  workerId: text("worker_id").primaryKey(),
  ts: integer("ts").notNull(),
  prefixQueryTokens: text("prefix_query_tokens").notNull(),
  prefixHitTokens: text("prefix_hit_tokens").notNull(),
});
