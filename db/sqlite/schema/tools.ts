import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Tool calls between turns. */
export const tools = sqliteTable(
  "tools",
  {
    /** The event id: unique with ts (the `*_ts` index), as kv_events is; no index of its own. */
    id: text("id").notNull(),
    ts: integer("ts").notNull(),
    sessionId: text("session_id").notNull(),
    trajectoryId: text("trajectory_id"),
    requestId: text("request_id"),
    toolCallId: text("tool_call_id").notNull(),
    name: text("name").notNull(),
    dispatchedAt: integer("dispatched_at"),
    startedAt: integer("started_at").notNull(),
    endedAt: integer("ended_at"),
    status: text("status").notNull(),
    outputBytes: integer("output_bytes"),
    outputTokens: integer("output_tokens"),
    truncated: integer("truncated", { mode: "boolean" }),
    budgetUnit: text("budget_unit"),
    budgetLimit: integer("budget_limit"),
    source: text("source"),
  },
  (t) => [index("tools_session").on(t.sessionId, t.startedAt), uniqueIndex("tools_ts").on(t.ts, t.id)],
);

/** Reasoning spans, each kept with the tool call it explains (never merged). */
export const reasoningSpans = sqliteTable(
  "reasoning_spans",
  {
    /** The event id: unique with ts (the `*_ts` index), as kv_events is; no index of its own. */
    id: text("id").notNull(),
    ts: integer("ts").notNull(),
    requestId: text("request_id").notNull(),
    toolCallId: text("tool_call_id"),
    tokens: integer("tokens").notNull(),
    startedAt: integer("started_at").notNull(),
    endedAt: integer("ended_at").notNull(),
    source: text("source"),
  },
  (t) => [index("reasoning_request").on(t.requestId), uniqueIndex("reasoning_ts").on(t.ts, t.id)],
);
