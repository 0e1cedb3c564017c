// The rows the ingest stores, one shape per telemetry event kind (docs/telemetry-format.md): the structural form of a validated
// event, so db/ takes them without knowing the schema that validated them. server/ingest/events.ts checks at compile
// time that its events and these shapes stay the same.
export type WorkerUpRow = {
  kind: "worker.up";
  worker_id: string;
  role: "prefill" | "decode" | "aggregated";
  model: string;
  kv_total_blocks: number;
  block_size: number;
  id: string;
  ts: number;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type WorkerDownRow = {
  kind: "worker.down";
  worker_id: string;
  id: string;
  ts: number;
  reason?: string | undefined;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type WorkerStatsRow = {
  kind: "worker.stats";
  worker_id: string;
  kv_active_blocks: number;
  kv_total_blocks: number;
  requests_running: number;
  requests_waiting: number;
  prefix_query_tokens: string;
  prefix_hit_tokens: string;
  id: string;
  ts: number;
  preemptions?: string | undefined;
  batch_tokens?: number | undefined;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type KvStoredRow = {
  kind: "kv.stored";
  worker_id: string;
  block_hashes: string[];
  parent_hash: string | null;
  id: string;
  ts: number;
  local_hashes?: string[] | undefined;
  retention_class?: string | undefined;
  session_id?: string | undefined;
  storage_tier?: "device" | "host" | "disk" | "shared" | undefined;
  onboarded_from?: "host" | "disk" | "shared" | undefined;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type KvRemovedRow = {
  kind: "kv.removed";
  worker_id: string;
  block_hashes: string[];
  reason: "unknown" | "capacity" | "ttl" | "agent_end" | "session_end" | "cleared" | "offloaded";
  id: string;
  ts: number;
  storage_tier?: "device" | "host" | "disk" | "shared" | undefined;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type KvClearedRow = {
  kind: "kv.cleared";
  worker_id: string;
  id: string;
  ts: number;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type RouteDecisionRow = {
  kind: "route.decision";
  request_id: string;
  prompt_blocks: number;
  chosen_worker_id: string;
  candidates: {
    worker_id: string;
    overlap_blocks: number;
    prefill_blocks: number;
    decode_blocks: number;
    cost: number;
  }[];
  overlap_credit: number;
  prefill_load_scale: number;
  temperature: number;
  id: string;
  ts: number;
  session_id?: string | undefined;
  trajectory_id?: string | undefined;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type RequestRow = {
  kind: "request";
  request_id: string;
  api: "chat_completions" | "responses" | "messages";
  model: string;
  arrived_at: number;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  status: "error" | "ok" | "cancelled";
  id: string;
  ts: number;
  parent_trajectory_id?: string | undefined;
  session_type?: string | undefined;
  harness?: string | undefined;
  worker_id?: string | undefined;
  first_token_at?: number | undefined;
  finished_at?: number | undefined;
  reasoning_tokens?: number | undefined;
  finish_reason?: string | undefined;
  agent_hints?:
    { priority?: number | undefined; osl?: number | undefined; speculative_prefill?: boolean | undefined } | undefined;
  block_size?: number | undefined;
  sequence_hashes?: string[] | undefined;
  local_hashes?: string[] | undefined;
  prefix_of?: { request_id: string; blocks: number } | undefined;
  policy_versions?:
    | {
        retention?: number | undefined;
        autoscaling?: number | undefined;
        routing?: number | undefined;
        frontend?: number | undefined;
      }
    | undefined;
  cached_tokens_by_tier?:
    | { device?: number | undefined; host?: number | undefined; disk?: number | undefined; shared?: number | undefined }
    | undefined;
  prefetched_tokens?: number | undefined;
  onboard_ms?: number | undefined;
  itl_ms_mean?: number | undefined;
  itl_ms_p95?: number | undefined;
  preemptions?: number | undefined;
  session_id?: string | undefined;
  trajectory_id?: string | undefined;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type ToolRow = {
  kind: "tool";
  session_id: string;
  tool_call_id: string;
  name: string;
  started_at: number;
  status: "error" | "cancelled" | "running" | "succeeded";
  id: string;
  ts: number;
  trajectory_id?: string | undefined;
  request_id?: string | undefined;
  dispatched_at?: number | undefined;
  ended_at?: number | undefined;
  output_bytes?: number | undefined;
  output_tokens?: number | undefined;
  truncated?: boolean | undefined;
  budget?: { unit: "bytes" | "tokens"; limit: number } | undefined;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type ReasoningRow = {
  kind: "reasoning";
  request_id: string;
  tokens: number;
  started_at: number;
  ended_at: number;
  id: string;
  ts: number;
  tool_call_id?: string | undefined;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type PlannerDecisionRow = {
  kind: "planner.decision";
  role: "prefill" | "decode" | "aggregated";
  metric: "prefill_queue" | "decode_kv_utilization";
  observed: number;
  scale_up_threshold: number;
  scale_down_threshold: number;
  action: "scale_up" | "scale_down" | "none";
  replicas_before: number;
  replicas_after: number;
  reason: string;
  model?: string | undefined;
  id: string;
  ts: number;
  source?: string | undefined;
  cluster?: string | undefined;
};
export type PolicyAckRow = {
  kind: "policy.ack";
  target: string;
  policy_kind: "retention" | "autoscaling" | "routing" | "frontend";
  version: number;
  status: "applied" | "rejected";
  model?: string | undefined;
  id: string;
  ts: number;
  message?: string | undefined;
  source?: string | undefined;
  cluster?: string | undefined;
};

/** Any event row; `kind` tells which. */
export type IngestRow =
  | WorkerUpRow
  | WorkerDownRow
  | WorkerStatsRow
  | KvStoredRow
  | KvRemovedRow
  | KvClearedRow
  | RouteDecisionRow
  | RequestRow
  | ToolRow
  | ReasoningRow
  | PlannerDecisionRow
  | PolicyAckRow;
export type IngestKind = IngestRow["kind"];
export type IngestRowOf<K extends IngestKind> = Extract<IngestRow, { kind: K }>;

/** What the store holds for the request a `prefix_of` names (newest row with that request_id). */
export type NamedRequest = {
  rowId: string;
  sessionId: string | null;
  source: string | null;
  arrivedAt: number;
  seqCount: number;
  /** null: it carried no local_hashes. */
  localCount: number | null;
};

export type PrefixCode = "unknown_prefix" | "invalid_prefix";
export type PrefixResolution =
  { ok: true; base: string; shared: number; localShared: number } | { ok: false; code: PrefixCode; error: string };
/** The decision whether a request's prefix_of may extend the named request (server/ingest/prefix.ts makes it). */
export type ResolvePrefix = (e: RequestRow, named: NamedRequest | null, laterInBatch: boolean) => PrefixResolution;

/**
 * An event refused alone when stored: a request whose prefix_of cannot be resolved (its code tells the sender what to
 * do), or an event of a cluster the store cannot take (`invalid_cluster`: its id is another name's, or there are
 * MAX_CLUSTERS already).
 */
export type StoreRejection = { status: "rejected"; code: PrefixCode | "invalid_cluster"; error: string };

export type StoreStatus = "accepted" | "duplicate" | StoreRejection;
