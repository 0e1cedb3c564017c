import type { IngestRow, IngestRowOf, IngestKind } from "../rows/ingest";
import { encodeHashes, hashListBytes } from "../codecs/chains";
import { encodeCandidates } from "../codecs/candidates";
import { encodeAgentHints, encodePolicyVersions } from "../codecs/request-json";
import { KV_INSERT, kvClearedRow, kvRemovedRow, kvStoredRow } from "./kv-rows";
import { clusterId } from "./clusters";
import { overlaps } from "./rollups";

/** Values of sequence_hashes, local_hashes, chain_base, seq_shared, local_shared, seq_count, local_count, local_refs. */
export type ChainColumns = [
  Buffer | null,
  Buffer | null,
  string | null,
  number,
  number,
  number | null,
  number | null,
  Buffer | null,
];
export const CHAIN_COLUMNS = [
  "sequence_hashes",
  "local_hashes",
  "chain_base",
  "seq_shared",
  "local_shared",
  "seq_count",
  "local_count",
  "local_refs",
];

// How each kind of event is stored: its table's INSERT and the row it becomes (column order matches).

export type Row = (string | number | Buffer | null)[];
type Table = { sql: string; row: (e: never) => Row };

export const opt = <T>(v: T | undefined) => (v === undefined ? null : v);
const hashesOrNull = (v: readonly string[] | undefined) => (v === undefined ? null : encodeHashes(v));
/** A request's chains stored whole, no base (rowOf; it ignores prefix_of): insertEvents stores them compactly instead. */
const wholeChains = (e: IngestRowOf<"request">): ChainColumns => [
  hashesOrNull(e.sequence_hashes),
  hashesOrNull(e.local_hashes),
  null,
  0,
  0,
  e.sequence_hashes?.length ?? null,
  e.local_hashes?.length ?? null,
  null,
];

/** A request row's columns before the chain columns. */
export const requestHead = (e: IngestRowOf<"request">): Row => [
  e.id,
  e.ts,
  clusterId(e.cluster),
  e.request_id,
  opt(e.session_id),
  opt(e.trajectory_id),
  opt(e.parent_trajectory_id),
  opt(e.session_type),
  opt(e.harness),
  e.api,
  e.model,
  opt(e.worker_id),
  e.arrived_at,
  opt(e.first_token_at),
  opt(e.finished_at),
  e.input_tokens,
  e.cached_tokens,
  e.output_tokens,
  opt(e.reasoning_tokens),
  opt(e.finish_reason),
  e.status,
  encodeAgentHints(e.agent_hints),
  opt(e.block_size),
  encodePolicyVersions(e.policy_versions),
  opt(e.source),
  opt(e.itl_ms_mean),
  opt(e.itl_ms_p95),
  opt(e.preemptions),
  ...tierColumns(e),
];

/** Tables whose event id is unique with ts (in their ts index) rather than alone (db/sqlite/migrations/0023). */
const ID_WITH_TS = new Set(["worker_stats", "route_decisions", "tools", "reasoning_spans"]);

function insert(table: string, columns: string[]): string {
  const key = ID_WITH_TS.has(table) ? "ts, id" : "id";
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")}) ON CONFLICT(${key}) DO NOTHING`;
}

const workerEventCols = [
  "id",
  "ts",
  "cluster_id",
  "kind",
  "worker_id",
  "role",
  "model",
  "kv_total_blocks",
  "block_size",
  "reason",
  "source",
];

/** requests' columns as every engine stores them (chains whole or compact). */
const REQUEST_COLUMNS = [
  "id",
  "ts",
  "cluster_id",
  "request_id",
  "session_id",
  "trajectory_id",
  "parent_trajectory_id",
  "session_type",
  "harness",
  "api",
  "model",
  "worker_id",
  "arrived_at",
  "first_token_at",
  "finished_at",
  "input_tokens",
  "cached_tokens",
  "output_tokens",
  "reasoning_tokens",
  "finish_reason",
  "status",
  "agent_hints",
  "block_size",
  "policy_versions",
  "source",
  "itl_ms_mean",
  "itl_ms_p95",
  "preemptions",
  "cached_device_tokens",
  "cached_host_tokens",
  "cached_disk_tokens",
  "cached_shared_tokens",
  "prefetched_tokens",
  "onboard_ms",
  ...CHAIN_COLUMNS,
];

/** SQLite's request insert: REQUEST_COLUMNS, then seq_refs (a sequence tail referring to KV events; kvRefColumns). */
export const REQUEST_INSERT = insert("requests", [...REQUEST_COLUMNS, "seq_refs"]);

/** Insert SQL and row mapping per event kind (column order matches). */
export const tables: Record<IngestKind, Table> = {
  "worker.up": {
    sql: insert("worker_events", workerEventCols),
    row: (e: IngestRowOf<"worker.up">) => [
      e.id,
      e.ts,
      clusterId(e.cluster),
      e.kind,
      e.worker_id,
      e.role,
      e.model,
      e.kv_total_blocks,
      e.block_size,
      null,
      opt(e.source),
    ],
  },
  "worker.down": {
    sql: insert("worker_events", workerEventCols),
    row: (e: IngestRowOf<"worker.down">) => [
      e.id,
      e.ts,
      clusterId(e.cluster),
      e.kind,
      e.worker_id,
      null,
      null,
      null,
      null,
      opt(e.reason),
      opt(e.source),
    ],
  },
  "worker.stats": {
    sql: insert("worker_stats", [
      "id",
      "ts",
      "cluster_id",
      "worker_id",
      "kv_active_blocks",
      "kv_total_blocks",
      "requests_running",
      "requests_waiting",
      "prefix_query_tokens",
      "prefix_hit_tokens",
      "preemptions",
      "batch_tokens",
      "source",
    ]),
    row: (e: IngestRowOf<"worker.stats">) => [
      e.id,
      e.ts,
      clusterId(e.cluster),
      e.worker_id,
      e.kv_active_blocks,
      e.kv_total_blocks,
      e.requests_running,
      e.requests_waiting,
      e.prefix_query_tokens,
      e.prefix_hit_tokens,
      opt(e.preemptions),
      opt(e.batch_tokens),
      opt(e.source),
    ],
  },
  // A kv.stored event's local_hashes are validated but not stored: nothing reads them (attribution takes a turn's
  // local hashes from its request), and they were half of every KV event row. Block lists may come lifted (their
  // bytes read from the body's text, server/ingest/lift-hashes.ts) or as parsed strings.
  "kv.stored": {
    sql: KV_INSERT,
    row: (e: IngestRowOf<"kv.stored">) => kvStoredRow(e, hashListBytes(e.block_hashes), null),
  },
  "kv.removed": {
    sql: KV_INSERT,
    row: (e: IngestRowOf<"kv.removed">) => kvRemovedRow(e, hashListBytes(e.block_hashes), null),
  },
  "kv.cleared": { sql: KV_INSERT, row: kvClearedRow },
  "route.decision": {
    sql: insert("route_decisions", [
      "id",
      "ts",
      "cluster_id",
      "request_id",
      "session_id",
      "trajectory_id",
      "prompt_blocks",
      "chosen_worker_id",
      "chosen_overlap_blocks",
      "best_overlap_blocks",
      "candidate_count",
      "candidates",
      "overlap_credit",
      "prefill_load_scale",
      "temperature",
      "source",
    ]),
    row: (e: IngestRowOf<"route.decision">) => {
      const { best, chosen } = overlaps(e);
      return [
        e.id,
        e.ts,
        clusterId(e.cluster),
        e.request_id,
        opt(e.session_id),
        opt(e.trajectory_id),
        e.prompt_blocks,
        e.chosen_worker_id,
        chosen,
        best,
        e.candidates.length,
        encodeCandidates(e.candidates),
        e.overlap_credit,
        e.prefill_load_scale,
        e.temperature,
        opt(e.source),
      ];
    },
  },
  request: {
    sql: insert("requests", REQUEST_COLUMNS),
    row: (e: IngestRowOf<"request">) => [...requestHead(e), ...wholeChains(e)],
  },
  tool: {
    sql: insert("tools", [
      "id",
      "ts",
      "cluster_id",
      "session_id",
      "trajectory_id",
      "request_id",
      "tool_call_id",
      "name",
      "dispatched_at",
      "started_at",
      "ended_at",
      "status",
      "output_bytes",
      "output_tokens",
      "truncated",
      "budget_unit",
      "budget_limit",
      "source",
    ]),
    row: (e: IngestRowOf<"tool">) => [
      e.id,
      e.ts,
      clusterId(e.cluster),
      e.session_id,
      opt(e.trajectory_id),
      opt(e.request_id),
      e.tool_call_id,
      e.name,
      opt(e.dispatched_at),
      e.started_at,
      opt(e.ended_at),
      e.status,
      opt(e.output_bytes),
      opt(e.output_tokens),
      e.truncated === undefined ? null : e.truncated ? 1 : 0,
      e.budget?.unit ?? null,
      e.budget?.limit ?? null,
      opt(e.source),
    ],
  },
  reasoning: {
    sql: insert("reasoning_spans", [
      "id",
      "ts",
      "cluster_id",
      "request_id",
      "tool_call_id",
      "tokens",
      "started_at",
      "ended_at",
      "source",
    ]),
    row: (e: IngestRowOf<"reasoning">) => [
      e.id,
      e.ts,
      clusterId(e.cluster),
      e.request_id,
      opt(e.tool_call_id),
      e.tokens,
      e.started_at,
      e.ended_at,
      opt(e.source),
    ],
  },
  "planner.decision": {
    sql: insert("planner_decisions", [
      "id",
      "ts",
      "cluster_id",
      "role",
      "metric",
      "observed",
      "scale_up_threshold",
      "scale_down_threshold",
      "action",
      "replicas_before",
      "replicas_after",
      "reason",
      "source",
    ]),
    row: (e: IngestRowOf<"planner.decision">) => [
      e.id,
      e.ts,
      clusterId(e.cluster),
      e.role,
      e.metric,
      e.observed,
      e.scale_up_threshold,
      e.scale_down_threshold,
      e.action,
      e.replicas_before,
      e.replicas_after,
      e.reason,
      opt(e.source),
    ],
  },
  "policy.ack": {
    sql: insert("policy_acks", [
      "id",
      "ts",
      "cluster_id",
      "target",
      "policy_kind",
      "version",
      "status",
      "message",
      "source",
    ]),
    row: (e: IngestRowOf<"policy.ack">) => [
      e.id,
      e.ts,
      clusterId(e.cluster),
      e.target,
      e.policy_kind,
      e.version,
      e.status,
      opt(e.message),
      opt(e.source),
    ],
  },
};

/** The per-tier cached tokens, prefetched tokens and onboarding time of a request row (tiers null when the event split none). */
function tierColumns(e: IngestRowOf<"request">): Row {
  const t = e.cached_tokens_by_tier;
  return t === undefined
    ? [null, null, null, null, opt(e.prefetched_tokens), opt(e.onboard_ms)]
    : [t.device ?? 0, t.host ?? 0, t.disk ?? 0, t.shared ?? 0, opt(e.prefetched_tokens), opt(e.onboard_ms)];
}

/** The row an event is stored as, in its table's column order. */
export function rowOf(e: IngestRow): Row {
  return (tables[e.kind].row as (x: IngestRow) => Row)(e);
}
