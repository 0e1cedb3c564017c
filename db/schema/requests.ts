import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One model call (a turn). Hash lists comma-separated decimal u64; hints and policy versions JSON. Kept: sessions are built from these. */
export const requests = sqliteTable(
  "requests",
  {
    id: text("id").primaryKey(),
    ts: integer("ts").notNull(),
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
    sequenceHashes: text("sequence_hashes"),
    localHashes: text("local_hashes"),
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
  },
  (t) => [
    index("requests_arrived").on(t.arrivedAt),
    index("requests_session").on(t.sessionId, t.arrivedAt),
    index("requests_request").on(t.requestId),
    index("requests_worker").on(t.workerId, t.arrivedAt),
  ],
);
