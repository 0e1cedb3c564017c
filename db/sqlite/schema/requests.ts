import { sql } from "drizzle-orm";
import { blob, index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One model call (a turn); hints and policy versions JSON. Kept: sessions are built from these. Chains are stored as
 * the extension of an earlier row (chain_base): its first seq_shared / local_shared hashes, then the tails held here as
 * 8-byte big-endian u64 blobs (db/codecs/chains.ts; read through db/sqlite/chains.ts, never directly). Rows
 * written before that hold the full chains as comma-separated decimal text, no base and null counts; readers take both.
 */
export const requests = sqliteTable(
  "requests",
  {
    id: text("id").primaryKey(),
    ts: integer("ts").notNull(),
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
    arrivedAt: integer("arrived_at").notNull(),
    firstTokenAt: integer("first_token_at"),
    finishedAt: integer("finished_at"),
    inputTokens: integer("input_tokens").notNull(),
    cachedTokens: integer("cached_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    reasoningTokens: integer("reasoning_tokens"),
    finishReason: text("finish_reason"),
    status: text("status").notNull(),
    agentHints: text("agent_hints"),
    blockSize: integer("block_size"),
    /** Sequence hashes from index seq_shared on (null: the request carried none). */
    sequenceHashes: blob("sequence_hashes", { mode: "buffer" }),
    /** Local hashes from index local_shared on (null: the request carried none). */
    localHashes: blob("local_hashes", { mode: "buffer" }),
    /** requests.id of the row whose chains this one extends (null: stored whole). */
    chainBase: text("chain_base"),
    seqShared: integer("seq_shared").notNull().default(0),
    localShared: integer("local_shared").notNull().default(0),
    /** Length of the full sequence chain (null on rows stored before compact chains). */
    seqCount: integer("seq_count"),
    /** Length of the full local chain (null: none, or a row stored before compact chains). */
    localCount: integer("local_count"),
    /**
     * Null: the local chain is chain_base's first local_shared hashes, then local_hashes. Else (local_shared 0) the
     * program that interleaves local_hashes with runs of chain_base's full local chain (db/codecs/runs.ts): a first turn
     * repeating another session's system prompt and tool definitions at an offset.
     */
    localRefs: blob("local_refs", { mode: "buffer" }),
    /**
     * Null: sequence_hashes is the whole tail. Else the program (db/codecs/kv-lists.ts) that interleaves sequence_hashes
     * with runs of hashes KV events hold literally (kv_events rowids): a turn's new blocks were stored as kv.stored
     * lists before the request ended. Retention stores the tail literally again before those KV events age out.
     */
    seqRefs: blob("seq_refs", { mode: "buffer" }),
    policyVersions: text("policy_versions"),
    /** Inter-token latency over the request's decode (ms): mean and 95th percentile. */
    itlMsMean: real("itl_ms_mean"),
    itlMsP95: real("itl_ms_p95"),
    /** Times the engine preempted the request (its KV freed and recomputed). */
    preemptions: integer("preemptions"),
    source: text("source"),
    /** cached_tokens_by_tier, null when the event did not split cached tokens by tier. */
    cachedDeviceTokens: integer("cached_device_tokens"),
    cachedHostTokens: integer("cached_host_tokens"),
    cachedDiskTokens: integer("cached_disk_tokens"),
    cachedSharedTokens: integer("cached_shared_tokens"),
    prefetchedTokens: integer("prefetched_tokens"),
    /** Time spent onboarding its cached blocks from lower tiers before it was scheduled (ms; null: not reported). */
    onboardMs: real("onboard_ms"),
  },
  (t) => [
    index("requests_arrived").on(t.arrivedAt),
    index("requests_session").on(t.sessionId, t.arrivedAt),
    index("requests_request").on(t.requestId),
    index("requests_worker").on(t.workerId, t.arrivedAt),
    index("requests_chain_base").on(t.chainBase),
    // Only rows whose tail refers to KV events: what retention stores literally before deleting them.
    index("requests_seq_refs")
      .on(t.ts)
      .where(sql`seq_refs IS NOT NULL`),
  ],
);
