import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { statsRollupColumns } from "./workers";

/** Requests per arrival minute: counts and token sums, for views over hours and days. */
export const requests1m = sqliteTable("requests_1m", {
  minute: integer("minute").primaryKey(),
  requests: integer("requests").notNull(),
  inputTokens: integer("input_tokens").notNull(),
  cachedTokens: integer("cached_tokens").notNull(),
  outputTokens: integer("output_tokens").notNull(),
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
  (t) => [primaryKey({ columns: [t.minute, t.workerId, t.stat, t.bucket] }), index("request_itl_1m_worker").on(t.workerId, t.minute)],
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
  (t) => [primaryKey({ columns: [t.minute, t.chosenWorkerId] }), index("route_decisions_1m_worker").on(t.chosenWorkerId, t.minute)],
);

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
