import { bigint, doublePrecision, integer as pgInt, pgTable, text as pgText } from "drizzle-orm/pg-core";
import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import * as pg from "../pg/schema";
import { ms } from "../pg/schema/columns";
import * as sqlite from "../sqlite/schema";
import type { Store } from "./store";

// The tables the sessions pages, the trace and the export read, per engine (as db/store/tables.ts does for the
// other pages; kept apart so that file's list stays short). requests is read through a narrow view of the columns the
// pages read, with `rid`: SQLite's rowid, PostgreSQL's identity column, the key attribution's request_causes names a
// request by. Never used to write: ingest and the attribution job own the tables.

export const pgSessionRequests = pgTable("requests", {
  id: pgText("id").notNull(),
  rid: bigint("rid", { mode: "number" }).notNull(),
  clusterId: pgInt("cluster_id").notNull(),
  model: pgText("model").notNull(),
  requestId: pgText("request_id").notNull(),
  sessionId: pgText("session_id"),
  trajectoryId: pgText("trajectory_id"),
  parentTrajectoryId: pgText("parent_trajectory_id"),
  sessionType: pgText("session_type"),
  harness: pgText("harness"),
  workerId: pgText("worker_id"),
  arrivedAt: ms("arrived_at").notNull(),
  firstTokenAt: ms("first_token_at"),
  finishedAt: ms("finished_at"),
  inputTokens: pgInt("input_tokens").notNull(),
  cachedTokens: pgInt("cached_tokens").notNull(),
  outputTokens: pgInt("output_tokens").notNull(),
  reasoningTokens: pgInt("reasoning_tokens"),
  status: pgText("status").notNull(),
  blockSize: pgInt("block_size"),
  policyVersions: pgText("policy_versions"),
  itlMsMean: doublePrecision("itl_ms_mean"),
  itlMsP95: doublePrecision("itl_ms_p95"),
  preemptions: pgInt("preemptions"),
  source: pgText("source"),
  cachedDeviceTokens: pgInt("cached_device_tokens"),
  cachedHostTokens: pgInt("cached_host_tokens"),
  cachedDiskTokens: pgInt("cached_disk_tokens"),
  cachedSharedTokens: pgInt("cached_shared_tokens"),
  prefetchedTokens: pgInt("prefetched_tokens"),
  onboardMs: doublePrecision("onboard_ms"),
});

export const sqliteSessionRequests = sqliteTable("requests", {
  id: text("id").notNull(),
  rid: integer("rowid").notNull(),
  clusterId: integer("cluster_id").notNull(),
  model: text("model").notNull(),
  requestId: text("request_id").notNull(),
  sessionId: text("session_id"),
  trajectoryId: text("trajectory_id"),
  parentTrajectoryId: text("parent_trajectory_id"),
  sessionType: text("session_type"),
  harness: text("harness"),
  workerId: text("worker_id"),
  arrivedAt: integer("arrived_at").notNull(),
  firstTokenAt: integer("first_token_at"),
  finishedAt: integer("finished_at"),
  inputTokens: integer("input_tokens").notNull(),
  cachedTokens: integer("cached_tokens").notNull(),
  outputTokens: integer("output_tokens").notNull(),
  reasoningTokens: integer("reasoning_tokens"),
  status: text("status").notNull(),
  blockSize: integer("block_size"),
  policyVersions: text("policy_versions"),
  itlMsMean: real("itl_ms_mean"),
  itlMsP95: real("itl_ms_p95"),
  preemptions: integer("preemptions"),
  source: text("source"),
  cachedDeviceTokens: integer("cached_device_tokens"),
  cachedHostTokens: integer("cached_host_tokens"),
  cachedDiskTokens: integer("cached_disk_tokens"),
  cachedSharedTokens: integer("cached_shared_tokens"),
  prefetchedTokens: integer("prefetched_tokens"),
  onboardMs: real("onboard_ms"),
});

/** kv_events as the impact windows read it (device evictions by reason); op and reason are the text both engines generate. */
export const pgImpactKvEvents = pgTable("kv_events", {
  ts: ms("ts").notNull(),
  clusterId: pgInt("cluster_id").notNull(),
  op: pgText("op", { enum: ["stored", "removed", "cleared"] }).notNull(),
  blockCount: pgInt("block_count").notNull(),
  reason: pgText("reason"),
  storageTier: pgText("storage_tier"),
});

export const sqliteImpactKvEvents = sqliteTable("kv_events", {
  ts: integer("ts").notNull(),
  clusterId: integer("cluster_id").notNull(),
  op: text("op", { enum: ["stored", "removed", "cleared"] }).notNull(),
  blockCount: integer("block_count").notNull(),
  reason: text("reason"),
  storageTier: text("storage_tier"),
});

const pgSessionTables = {
  requests: pgSessionRequests,
  requestCauses: pg.requestCauses,
  causes1m: pg.causes1m,
  sessionSummaries: pg.sessionSummaries,
  tools: pg.tools,
  reasoningSpans: pg.reasoningSpans,
  routeDecisions: pg.routeDecisions,
  kvEvents: pgImpactKvEvents,
};

export type SessionTables = typeof pgSessionTables;

const sqliteSessionTables = {
  requests: sqliteSessionRequests,
  requestCauses: sqlite.requestCauses,
  causes1m: sqlite.causes1m,
  sessionSummaries: sqlite.sessionSummaries,
  tools: sqlite.tools,
  reasoningSpans: sqlite.reasoningSpans,
  routeDecisions: sqlite.routeDecisions,
  kvEvents: sqliteImpactKvEvents,
} satisfies Record<keyof SessionTables, unknown>;

/** The session tables of a store's engine, typed as PostgreSQL's (sound while `parity` below compiles). */
export function sessionTables(s: Store): SessionTables {
  return s.engine === "pg" ? pgSessionTables : (sqliteSessionTables as unknown as SessionTables);
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type SqliteSessionTables = typeof sqliteSessionTables;
/** PostgreSQL's insertion number (seq: SQLite's rowid, pg 0009) is the attribution job's alone. */
type Parity = {
  [K in keyof SessionTables]: Same<
    Omit<SessionTables[K]["$inferSelect"], "seq">,
    SqliteSessionTables[K]["$inferSelect"]
  >;
};

/** Fails to compile when a table's select row differs between the engines (a `false` here names it). */
export const sessionParity: { [K in keyof SessionTables]: true } = null as unknown as Parity;
