import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

// Maintained by the attribution job (server/jobs/attribution.ts), never by ingest. Hashes are u64 stored as signed i64.

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
