import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
} from "drizzle-orm/pg-core";
import { decodeSql, KV_OPS, KV_REASONS } from "../../codecs/kv-codes";
import { bytea, ms } from "./columns";

// The event tables of PostgreSQL's ingest other than workers' and requests; mirror db/sqlite/schema (kv, routing, tools,
// planner, policies) column for column. Each is partitioned by day on ts, so its key is (id, ts).

/** kv.stored / kv.removed / kv.cleared; block lists always literal (block_refs stays null on PostgreSQL). */
export const kvEvents = pgTable(
  "kv_events",
  {
    /** 48-bit hash of the event id (db/ingest/kv-rows.ts), as on SQLite: with ts, what makes a re-sent event a duplicate. */
    idKey: bigint("id_key", { mode: "number" }).notNull(),
    ts: ms("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    /** op and reason as SQLite stores them (db/codecs/kv-codes.ts), their text generated from the codes. */
    opCode: integer("op_code").notNull(),
    op: text("op", { enum: KV_OPS }).generatedAlwaysAs(sql.raw(decodeSql("op_code", KV_OPS))),
    workerId: text("worker_id").notNull(),
    blockCount: integer("block_count").notNull(),
    blockHashes: bytea("block_hashes"),
    parentHash: bytea("parent_hash"),
    localHashes: bytea("local_hashes"),
    retentionClass: text("retention_class"),
    reasonCode: integer("reason_code"),
    reason: text("reason").generatedAlwaysAs(sql.raw(decodeSql("reason_code", KV_REASONS))),
    source: text("source"),
    storageTier: text("storage_tier"),
    onboardedFrom: text("onboarded_from"),
    blockRefs: bytea("block_refs"),
    /** Insertion order (SQLite's rowid): the attribution job's cursor. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ts, t.idKey] }),
    index("kv_events_worker_ts").on(t.workerId, t.ts),
    index("kv_events_seq_idx").on(t.seq),
  ],
);

/** route.decision events; candidates in db/codecs/candidates.ts's compact text, as on SQLite. */
export const routeDecisions = pgTable(
  "route_decisions",
  {
    id: text("id").notNull(),
    ts: ms("ts").notNull(),
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
    overlapCredit: doublePrecision("overlap_credit").notNull(),
    prefillLoadScale: doublePrecision("prefill_load_scale").notNull(),
    temperature: doublePrecision("temperature").notNull(),
    source: text("source"),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.ts] }),
    // The routing page reads a range newest first, and the workers page counts a range's decisions: by time.
    index("route_decisions_ts").on(t.ts, t.id),
    index("route_decisions_worker_ts").on(t.chosenWorkerId, t.ts),
    index("route_decisions_request").on(t.requestId),
  ],
);

/** Tool calls between turns. */
export const tools = pgTable(
  "tools",
  {
    id: text("id").notNull(),
    ts: ms("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    sessionId: text("session_id").notNull(),
    trajectoryId: text("trajectory_id"),
    requestId: text("request_id"),
    toolCallId: text("tool_call_id").notNull(),
    name: text("name").notNull(),
    dispatchedAt: ms("dispatched_at"),
    startedAt: ms("started_at").notNull(),
    endedAt: ms("ended_at"),
    status: text("status").notNull(),
    outputBytes: bigint("output_bytes", { mode: "number" }),
    outputTokens: integer("output_tokens"),
    truncated: boolean("truncated"),
    budgetUnit: text("budget_unit"),
    budgetLimit: bigint("budget_limit", { mode: "number" }),
    source: text("source"),
    /** Insertion order (SQLite's rowid): the attribution job's cursor. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.ts] }),
    index("tools_session").on(t.sessionId, t.startedAt),
    index("tools_seq_idx").on(t.seq),
  ],
);

/** Reasoning spans, each kept with the tool call it explains (never merged). */
export const reasoningSpans = pgTable(
  "reasoning_spans",
  {
    id: text("id").notNull(),
    ts: ms("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    requestId: text("request_id").notNull(),
    toolCallId: text("tool_call_id"),
    tokens: integer("tokens").notNull(),
    startedAt: ms("started_at").notNull(),
    endedAt: ms("ended_at").notNull(),
    source: text("source"),
  },
  (t) => [primaryKey({ columns: [t.id, t.ts] }), index("reasoning_request").on(t.requestId)],
);

/** Every planner decision, including "no change". */
export const plannerDecisions = pgTable(
  "planner_decisions",
  {
    id: text("id").notNull(),
    ts: ms("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    role: text("role").notNull(),
    metric: text("metric").notNull(),
    observed: doublePrecision("observed").notNull(),
    scaleUpThreshold: doublePrecision("scale_up_threshold").notNull(),
    scaleDownThreshold: doublePrecision("scale_down_threshold").notNull(),
    action: text("action").notNull(),
    replicasBefore: integer("replicas_before").notNull(),
    replicasAfter: integer("replicas_after").notNull(),
    reason: text("reason").notNull(),
    source: text("source"),
    model: text("model"),
  },
  (t) => [primaryKey({ columns: [t.id, t.ts] }), index("planner_decisions_role_ts").on(t.role, t.ts)],
);

/** policy.ack events: what a target reported it applied or refused. */
export const policyAcks = pgTable(
  "policy_acks",
  {
    id: text("id").notNull(),
    ts: ms("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    target: text("target").notNull(),
    policyKind: text("policy_kind").notNull(),
    version: integer("version").notNull(),
    status: text("status").notNull(),
    message: text("message"),
    source: text("source"),
    model: text("model"),
  },
  (t) => [primaryKey({ columns: [t.id, t.ts] }), index("policy_acks_target").on(t.target, t.policyKind, t.ts)],
);
