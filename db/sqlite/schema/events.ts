import { KV_OPS, KV_REASONS, decodeSql } from "../../codecs/kv-codes";
import { sql } from "drizzle-orm";
import { blob, index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * kv.stored / kv.removed / kv.cleared; hashes are 8-byte big-endian u64 blobs (older rows: decimal text; codecs/chains.ts
 * reads both). A list that repeats hashes earlier events hold keeps only its other hashes in block_hashes, and
 * block_refs says where the rest are (db/codecs/kv-lists.ts; read through db/sqlite/kv-lists.ts). Raw: ages out.
 * A kv.stored event's session_id is validated, not stored: nothing reads it (a turn's session is its request's).
 */
export const kvEvents = sqliteTable(
  "kv_events",
  {
    /** The event id of rows stored before id_key (null since: an id is only ever matched, never read back). */
    id: text("id"),
    /** 48-bit hash of the event id (db/ingest/kv-rows.ts): with ts, what makes a re-sent event a duplicate. */
    idKey: integer("id_key"),
    ts: integer("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    /** The op as a code (db/codecs/kv-codes.ts); read `op`, its text, generated from it and not stored. */
    opCode: integer("op_code").notNull(),
    op: text("op", { enum: KV_OPS }).generatedAlwaysAs(sql.raw(decodeSql("op_code", KV_OPS)), { mode: "virtual" }),
    workerId: text("worker_id").notNull(),
    blockCount: integer("block_count").notNull(),
    blockHashes: blob("block_hashes", { mode: "buffer" }),
    parentHash: blob("parent_hash", { mode: "buffer" }),
    localHashes: blob("local_hashes", { mode: "buffer" }),
    retentionClass: text("retention_class"),
    /** The removal reason as a code (db/codecs/kv-codes.ts; null on stored rows); read `reason`, generated from it. */
    reasonCode: integer("reason_code"),
    reason: text("reason").generatedAlwaysAs(sql.raw(decodeSql("reason_code", KV_REASONS)), { mode: "virtual" }),
    source: text("source"),
    /** device | host | disk | shared (null: device, as sent before tiers existed). */
    storageTier: text("storage_tier"),
    /** On a stored-on-device event: the tier the blocks were brought back from. */
    onboardedFrom: text("onboarded_from"),
    /** Null: block_hashes is the whole list. Else the program interleaving it with references to earlier events. */
    blockRefs: blob("block_refs", { mode: "buffer" }),
  },
  // (ts, id_key) serves time ranges and idempotency in one index: an event id's text and its own index were a fifth of
  // the table. Rows stored before it have a null id_key (their ids stay in id, unindexed). The policy preview finds a
  // chain's later stores by their parent hash (db/sqlite/previews.ts): an index of the rows that have one, about half,
  // in place of a (worker, ts) index of every row that only that lookup used (1.1 MB an hour of steady traffic
  // against 2.6, and one row read per lookup instead of a worker's two minutes of stores).
  (t) => [
    uniqueIndex("kv_events_ts_key").on(t.ts, t.idKey),
    index("kv_events_parent")
      .on(t.parentHash)
      .where(sql`parent_hash IS NOT NULL`),
  ],
);

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
    clusterId: integer("cluster_id").notNull().default(0),
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

/** Tool calls between turns. */
export const tools = sqliteTable(
  "tools",
  {
    /** The event id: unique with ts (the `*_ts` index), as kv_events is; no index of its own. */
    id: text("id").notNull(),
    ts: integer("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
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
    clusterId: integer("cluster_id").notNull().default(0),
    requestId: text("request_id").notNull(),
    toolCallId: text("tool_call_id"),
    tokens: integer("tokens").notNull(),
    startedAt: integer("started_at").notNull(),
    endedAt: integer("ended_at").notNull(),
    source: text("source"),
  },
  (t) => [index("reasoning_request").on(t.requestId), uniqueIndex("reasoning_ts").on(t.ts, t.id)],
);

/** Every planner decision, including "no change". */
export const plannerDecisions = sqliteTable(
  "planner_decisions",
  {
    id: text("id").primaryKey(),
    ts: integer("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    role: text("role").notNull(),
    metric: text("metric").notNull(),
    observed: real("observed").notNull(),
    scaleUpThreshold: real("scale_up_threshold").notNull(),
    scaleDownThreshold: real("scale_down_threshold").notNull(),
    action: text("action").notNull(),
    replicasBefore: integer("replicas_before").notNull(),
    replicasAfter: integer("replicas_after").notNull(),
    reason: text("reason").notNull(),
    source: text("source"),
    /** The model whose planner decided (null: not named). */
    model: text("model"),
  },
  (t) => [index("planner_decisions_ts").on(t.ts), index("planner_decisions_role_ts").on(t.role, t.ts)],
);

/** policy.ack events: what a target reported it applied or refused. */
export const policyAcks = sqliteTable(
  "policy_acks",
  {
    id: text("id").primaryKey(),
    ts: integer("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    target: text("target").notNull(),
    policyKind: text("policy_kind").notNull(),
    version: integer("version").notNull(),
    status: text("status").notNull(),
    message: text("message"),
    source: text("source"),
    /** The model whose policy line the version is of (null: the whole cluster's; lib/policy-scope.ts). */
    model: text("model"),
  },
  (t) => [index("policy_acks_ts").on(t.ts), index("policy_acks_target").on(t.target, t.policyKind, t.ts)],
);
