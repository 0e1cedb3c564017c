import type { IngestRow, IngestRowOf, IngestKind } from "../rows/ingest";
import { hashListBytes } from "../codecs/chains";
import { encodeCandidates } from "../codecs/candidates";
import { KV_INSERT, kvClearedRow, kvRemovedRow, kvStoredRow } from "./kv-rows";
import { REQUEST_COLUMNS, requestRow } from "./request-rows";
import { opt, type Row } from "./row-values";
import { clusterId } from "./clusters";
import { overlaps } from "./rollups";

// How each kind of event is stored: its table's INSERT and the row it becomes (column order matches). A request's
// columns and row are request-rows.ts's, KV events' kv-rows.ts's.

type Table = { sql: string; row: (e: never) => Row };

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
    row: requestRow,
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
      "model",
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
      opt(e.model),
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
      "model",
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
      opt(e.model),
    ],
  },
};

/** The row an event is stored as, in its table's column order. */
export function rowOf(e: IngestRow): Row {
  return (tables[e.kind].row as (x: IngestRow) => Row)(e);
}
