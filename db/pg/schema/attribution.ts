import { doublePrecision, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { ms } from "./columns";

// Attribution's output tables on PostgreSQL: mirror db/sqlite/schema/sessions.ts's request_causes, causes_1m and
// session_summaries column for column (the attribution job's own index and state tables stay SQLite-only). A causes
// row names its request by requests.rid, as SQLite's names it by the requests rowid.

/** Per request: its recomputed prompt tokens by cause, and the KV its agent held while waiting on tools before it. */
export const requestCauses = pgTable(
  "request_causes",
  {
    /** The request's requests.rid (join on r.rid = rc.rid). */
    rid: ms("rid").primaryKey(),
    arrivedAt: ms("arrived_at").notNull(),
    recomputed: integer("recomputed").notNull(),
    cold: integer("cold").notNull(),
    diverged: integer("diverged").notNull(),
    evicted: integer("evicted").notNull(),
    routedAway: integer("routed_away").notNull(),
    unknown: integer("unknown").notNull(),
    evictedReason: text("evicted_reason"),
    retentionVersion: integer("retention_version"),
    heldTokens: ms("held_tokens"),
    waitMs: ms("wait_ms"),
    survivedTokens: ms("survived_tokens"),
  },
  (t) => [index("request_causes_arrived").on(t.arrivedAt)],
);

/** Recomputed tokens by cause per arrival minute (cluster-wide series). */
export const causes1m = pgTable("causes_1m", {
  minute: ms("minute").primaryKey(),
  cold: ms("cold").notNull(),
  diverged: ms("diverged").notNull(),
  evicted: ms("evicted").notNull(),
  routedAway: ms("routed_away").notNull(),
  unknown: ms("unknown").notNull(),
});

/** One row per session, rebuilt from its requests, causes and tools whenever they change. */
export const sessionSummaries = pgTable(
  "session_summaries",
  {
    sessionId: text("session_id").primaryKey(),
    harness: text("harness"),
    sessionType: text("session_type"),
    firstAt: ms("first_at").notNull(),
    lastAt: ms("last_at").notNull(),
    turns: integer("turns").notNull(),
    agents: integer("agents").notNull(),
    subagents: integer("subagents").notNull(),
    inputTokens: ms("input_tokens").notNull(),
    cachedTokens: ms("cached_tokens").notNull(),
    outputTokens: ms("output_tokens").notNull(),
    cachedShare: doublePrecision("cached_share"),
    cold: ms("cold").notNull(),
    diverged: ms("diverged").notNull(),
    evicted: ms("evicted").notNull(),
    routedAway: ms("routed_away").notNull(),
    unknown: ms("unknown").notNull(),
    ttftP50: ms("ttft_p50"),
    toolCalls: integer("tool_calls").notNull(),
    toolWaitMs: ms("tool_wait_ms").notNull(),
    errors: integer("errors").notNull(),
    duration: ms("duration").notNull(),
    local0: text("local0"),
    local1: text("local1"),
  },
  (t) => [index("session_summaries_last").on(t.lastAt)],
);
