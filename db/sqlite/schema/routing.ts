import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * route.decision events; candidates in the compact text of db/codecs/candidates.ts (rows stored before it, or with
 * worker ids it cannot hold: the JSON array), read back as JSON through candidatesJson. best/chosen overlap are
 * derived for routing loss.
 */
export const routeDecisions = sqliteTable(
  "route_decisions",
  {
    /** The event id: unique with ts (the `*_ts` index), as kv_events is; no index of its own. */
    id: text("id").notNull(),
    ts: integer("ts").notNull(),
    requestId: text("request_id").notNull(),
    sessionId: text("session_id"),
    trajectoryId: text("trajectory_id"),
    promptBlocks: integer("prompt_blocks").notNull(),
    chosenWorkerId: text("chosen_worker_id").notNull(),
    chosenOverlapBlocks: integer("chosen_overlap_blocks").notNull(),
    bestOverlapBlocks: integer("best_overlap_blocks").notNull(),
    candidateCount: integer("candidate_count").notNull(),
    candidates: text("candidates").notNull(),
    overlapCredit: real("overlap_credit").notNull(),
    prefillLoadScale: real("prefill_load_scale").notNull(),
    temperature: real("temperature").notNull(),
    source: text("source"),
  },
  (t) => [
    uniqueIndex("route_decisions_ts").on(t.ts, t.id),
    index("route_decisions_worker_ts").on(t.chosenWorkerId, t.ts),
    index("route_decisions_request").on(t.requestId),
  ],
);
