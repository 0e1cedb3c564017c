import { bigint, doublePrecision, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { bytea, ms } from "./columns";

/**
 * One model call (a turn); mirrors db/sqlite/schema/requests.ts. Not partitioned: sessions are built from these and kept for
 * days. A turn whose prefix_of names a stored request holds only its own hashes after that request's first seq_shared /
 * local_shared (chain_base); other rows hold their chains whole (db/pg/chains.ts). SQLite's runs and KV references
 * (local_refs) are not used here: always null.
 */
export const requests = pgTable(
  "requests",
  {
    id: text("id").primaryKey(),
    /** A number per row, as SQLite's rowid: what attribution's request_causes names the request by. */
    rid: bigint("rid", { mode: "number" }).generatedAlwaysAsIdentity(),
    ts: ms("ts").notNull(),
    clusterId: integer("cluster_id").notNull().default(0),
    requestId: text("request_id").notNull(),
    sessionId: text("session_id"),
    trajectoryId: text("trajectory_id"),
    parentTrajectoryId: text("parent_trajectory_id"),
    sessionType: text("session_type"),
    harness: text("harness"),
    api: text("api").notNull(),
    model: text("model").notNull(),
    workerId: text("worker_id"),
    arrivedAt: ms("arrived_at").notNull(),
    firstTokenAt: ms("first_token_at"),
    finishedAt: ms("finished_at"),
    inputTokens: integer("input_tokens").notNull(),
    cachedTokens: integer("cached_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    reasoningTokens: integer("reasoning_tokens"),
    finishReason: text("finish_reason"),
    status: text("status").notNull(),
    agentHints: text("agent_hints"),
    blockSize: integer("block_size"),
    sequenceHashes: bytea("sequence_hashes"),
    localHashes: bytea("local_hashes"),
    /** As on SQLite (db/codecs/runs.ts); always null here. */
    localRefs: bytea("local_refs"),
    chainBase: text("chain_base"),
    seqShared: integer("seq_shared").notNull().default(0),
    localShared: integer("local_shared").notNull().default(0),
    seqCount: integer("seq_count"),
    localCount: integer("local_count"),
    policyVersions: text("policy_versions"),
    itlMsMean: doublePrecision("itl_ms_mean"),
    itlMsP95: doublePrecision("itl_ms_p95"),
    preemptions: integer("preemptions"),
    source: text("source"),
    cachedDeviceTokens: integer("cached_device_tokens"),
    cachedHostTokens: integer("cached_host_tokens"),
    cachedDiskTokens: integer("cached_disk_tokens"),
    cachedSharedTokens: integer("cached_shared_tokens"),
    prefetchedTokens: integer("prefetched_tokens"),
    onboardMs: doublePrecision("onboard_ms"),
  },
  (t) => [
    index("requests_arrived").on(t.arrivedAt),
    index("requests_session").on(t.sessionId, t.arrivedAt),
    index("requests_request").on(t.requestId),
    index("requests_worker").on(t.workerId, t.arrivedAt),
    uniqueIndex("requests_rid").on(t.rid),
    /** Retention finds the rows naming a deleted row as their base (db/pg/chains.ts, rebaseDependentsPg). */
    index("requests_chain_base").on(t.chainBase),
  ],
);
