import type { IngestRowOf } from "../rows/ingest";
import { encodeHashes } from "../codecs/chains";
import { encodeAgentHints, encodePolicyVersions } from "../codecs/request-json";
import { clusterId } from "./clusters";
import { opt, type Row } from "./row-values";

// How a request is stored (requests, db/sqlite/schema/requests.ts): its columns and the row it becomes, in their order. Each engine's
// ingest begins a request's row with requestHead and ends it with its chain columns, whole (requestRow) or compact.

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

/** requests' columns as every engine stores them (chains whole or compact). */
export const REQUEST_COLUMNS = [
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

const hashesOrNull = (v: readonly string[] | undefined) => (v === undefined ? null : encodeHashes(v));
/** A request's chains stored whole, no base (requestRow, so rowOf; it ignores prefix_of): insertEvents stores them compactly instead. */
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

/** A request's whole row, chains stored whole (REQUEST_COLUMNS' order). */
export const requestRow = (e: IngestRowOf<"request">): Row => [...requestHead(e), ...wholeChains(e)];

/** The per-tier cached tokens, prefetched tokens and onboarding time of a request row (tiers null when the event split none). */
function tierColumns(e: IngestRowOf<"request">): Row {
  const t = e.cached_tokens_by_tier;
  return t === undefined
    ? [null, null, null, null, opt(e.prefetched_tokens), opt(e.onboard_ms)]
    : [t.device ?? 0, t.host ?? 0, t.disk ?? 0, t.shared ?? 0, opt(e.prefetched_tokens), opt(e.onboard_ms)];
}
