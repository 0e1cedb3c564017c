import { blob, index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

// Maintained by the attribution job (server/jobs/attribution.ts), never by ingest. Hashes are u64 stored as signed i64.

/**
 * Per block (its sequence hash as the rowid): the attr_lists row holding every stored→removed interval of that block
 * on any worker (0: none; see db/sqlite/attribution-index.ts; blocks with the same history share one list), and the
 * first time the block (with its whole prefix) was cacheable anywhere (null: not yet), in ms after attr_state's 'epoch'.
 */
export const attrBlocks = sqliteTable("attr_blocks", {
  hash: integer("hash").primaryKey(),
  list: integer("list").notNull().default(0),
  firstAt: integer("first_at"),
});

/** Interval lists, ~8 bytes per interval as varints, each stored once; refs: the attr_blocks rows pointing to it. */
export const attrLists = sqliteTable("attr_lists", {
  id: integer("id").primaryKey(),
  refs: integer("refs").notNull(),
  intervals: blob("intervals", { mode: "buffer" }).notNull(),
});

/** Small integer ids for worker ids and removal reasons inside attr_blocks intervals. */
export const attrNames = sqliteTable("attr_names", {
  id: integer("id").primaryKey(),
  name: text("name").notNull().unique(),
});

/** Every kv.cleared the job applied (worker as an attr_names id): closes, on read, what that worker held then. */
export const attrClears = sqliteTable("attr_clears", {
  worker: integer("worker").notNull(),
  at: integer("at").notNull(),
});

/** First time a block's content (local hash) appeared in any prompt, in ms after attr_state's 'epoch'. */
export const attrLocal = sqliteTable("attr_local", {
  hash: integer("hash").primaryKey(),
  firstAt: integer("first_at").notNull(),
});

/** The job's cursors (rowids of the raw tables it has read). */
export const attrState = sqliteTable("attr_state", {
  key: text("key").primaryKey(),
  value: integer("value").notNull(),
});

/** Per request: its recomputed prompt tokens by cause, and the KV its agent held while waiting on tools before it. */
export const requestCauses = sqliteTable(
  "request_causes",
  {
    /** The request's requests rowid (its id, request id and session are read from there: join on r.rowid = rc.rid). */
    rid: integer("rid").primaryKey(),
    arrivedAt: integer("arrived_at").notNull(),
    recomputed: integer("recomputed").notNull(),
    cold: integer("cold").notNull(),
    diverged: integer("diverged").notNull(),
    evicted: integer("evicted").notNull(),
    routedAway: integer("routed_away").notNull(),
    unknown: integer("unknown").notNull(),
    evictedReason: text("evicted_reason"),
    retentionVersion: integer("retention_version"),
    heldTokens: integer("held_tokens"),
    waitMs: integer("wait_ms"),
    survivedTokens: integer("survived_tokens"),
  },
  (t) => [index("request_causes_arrived").on(t.arrivedAt)],
);

/** Recomputed tokens by cause per arrival minute (cluster-wide series). */
export const causes1m = sqliteTable("causes_1m", {
  minute: integer("minute").primaryKey(),
  cold: integer("cold").notNull(),
  diverged: integer("diverged").notNull(),
  evicted: integer("evicted").notNull(),
  routedAway: integer("routed_away").notNull(),
  unknown: integer("unknown").notNull(),
});

/** One row per session, rebuilt from its requests, causes and tools whenever they change. */
export const sessionSummaries = sqliteTable(
  "session_summaries",
  {
    sessionId: text("session_id").primaryKey(),
    harness: text("harness"),
    sessionType: text("session_type"),
    firstAt: integer("first_at").notNull(),
    lastAt: integer("last_at").notNull(),
    turns: integer("turns").notNull(),
    agents: integer("agents").notNull(),
    subagents: integer("subagents").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    cachedTokens: integer("cached_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    cachedShare: real("cached_share"),
    cold: integer("cold").notNull(),
    diverged: integer("diverged").notNull(),
    evicted: integer("evicted").notNull(),
    routedAway: integer("routed_away").notNull(),
    unknown: integer("unknown").notNull(),
    ttftP50: integer("ttft_p50"),
    toolCalls: integer("tool_calls").notNull(),
    toolWaitMs: integer("tool_wait_ms").notNull(),
    errors: integer("errors").notNull(),
    duration: integer("duration").notNull(),
    local0: text("local0"),
    local1: text("local1"),
  },
  (t) => [index("session_summaries_last").on(t.lastAt)],
);
