import { integer as pgInt, doublePrecision, pgTable, text as pgText } from "drizzle-orm/pg-core";
import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { ms } from "../pg/schema/columns";

// Narrow read-only views of two tables whose stored columns differ between the engines (SQLite's kv_events keeps old
// text ids and block references, its requests keep sequence-tail references): only the columns the pages read, named
// as the tables are, so a page query is written once over them. Never used to write: ingest owns the full tables.

export const pgKvEventReads = pgTable("kv_events", {
  ts: ms("ts").notNull(),
  op: pgText("op", { enum: ["stored", "removed", "cleared"] }).notNull(),
  workerId: pgText("worker_id").notNull(),
  blockCount: pgInt("block_count").notNull(),
  retentionClass: pgText("retention_class"),
  reason: pgText("reason"),
});

export const sqliteKvEventReads = sqliteTable("kv_events", {
  ts: integer("ts").notNull(),
  op: text("op", { enum: ["stored", "removed", "cleared"] }).notNull(),
  workerId: text("worker_id").notNull(),
  blockCount: integer("block_count").notNull(),
  retentionClass: text("retention_class"),
  reason: text("reason"),
});

export const pgRequestReads = pgTable("requests", {
  requestId: pgText("request_id").notNull(),
  clusterId: pgInt("cluster_id").notNull(),
  model: pgText("model").notNull(),
  sessionId: pgText("session_id"),
  workerId: pgText("worker_id"),
  arrivedAt: ms("arrived_at").notNull(),
  firstTokenAt: ms("first_token_at"),
  inputTokens: pgInt("input_tokens").notNull(),
  cachedTokens: pgInt("cached_tokens").notNull(),
  blockSize: pgInt("block_size"),
  itlMsMean: doublePrecision("itl_ms_mean"),
  itlMsP95: doublePrecision("itl_ms_p95"),
  preemptions: pgInt("preemptions"),
});

export const sqliteRequestReads = sqliteTable("requests", {
  requestId: text("request_id").notNull(),
  clusterId: integer("cluster_id").notNull(),
  model: text("model").notNull(),
  sessionId: text("session_id"),
  workerId: text("worker_id"),
  arrivedAt: integer("arrived_at").notNull(),
  firstTokenAt: integer("first_token_at"),
  inputTokens: integer("input_tokens").notNull(),
  cachedTokens: integer("cached_tokens").notNull(),
  blockSize: integer("block_size"),
  itlMsMean: real("itl_ms_mean"),
  itlMsP95: real("itl_ms_p95"),
  preemptions: integer("preemptions"),
});

/**
 * Tables the overview only asks "any rows at all?" of (their other columns differ between the engines): the event id
 * alone, which both hold.
 */
export const pgPresence = {
  tools: pgTable("tools", { id: pgText("id").notNull() }),
  reasoningSpans: pgTable("reasoning_spans", { id: pgText("id").notNull() }),
  plannerDecisions: pgTable("planner_decisions", { id: pgText("id").notNull() }),
};
export const sqlitePresence = {
  tools: sqliteTable("tools", { id: text("id").notNull() }),
  reasoningSpans: sqliteTable("reasoning_spans", { id: text("id").notNull() }),
  plannerDecisions: sqliteTable("planner_decisions", { id: text("id").notNull() }),
};

/** requests_1m as SQLite holds it, but for its key: an INTEGER PRIMARY KEY is optional on insert there, not on pg. */
export const sqliteRequests1mReads = sqliteTable("requests_1m", {
  minute: integer("minute").notNull(),
  requests: integer("requests").notNull(),
  inputTokens: integer("input_tokens").notNull(),
  cachedTokens: integer("cached_tokens").notNull(),
  outputTokens: integer("output_tokens").notNull(),
  cachedHostTokens: integer("cached_host_tokens").notNull().default(0),
  cachedDiskTokens: integer("cached_disk_tokens").notNull().default(0),
  cachedSharedTokens: integer("cached_shared_tokens").notNull().default(0),
  prefetchedTokens: integer("prefetched_tokens").notNull().default(0),
  preemptions: integer("preemptions").notNull().default(0),
});
