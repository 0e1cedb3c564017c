import { z } from "zod";
import {
  BUDGET_UNITS,
  MAX_BLOCK_SIZE,
  MAX_BLOCKS,
  MAX_CANDIDATES,
  MAX_CHAIN,
  MAX_COUNT,
  MAX_ID,
  MAX_LATENCY_MS,
  MAX_RATIO,
  MAX_TOKENS,
  MAX_TS,
  MIN_TS,
  REMOVAL_REASONS,
  REQUEST_APIS,
  REQUEST_STATUSES,
  STORAGE_TIERS,
  TOOL_STATUSES,
  WORKER_ROLES,
} from "./event-bounds";
import { blockHash, chainHashes, counter, hashes, hashList } from "./event-fields";
import { fastParse } from "./event-fast-path";
import { clusterName } from "../../lib/cluster-name";
import { workerKey } from "../../lib/worker-key";
import type { IngestKind, IngestRowOf } from "../../db/rows/ingest";

// switchyard.telemetry.v1: the normalized event model (docs/telemetry-format.md) with bounds on every field (event-bounds.ts).
// Its hash and counter fields are built in event-fields.ts.
// parseEvent takes the hand-written fast path first (event-fast-path.ts): it accepts only what this schema accepts
// and builds the same event; anything else (every bad input) is parsed here, so errors come from this schema alone.

export {
  CLUSTER_NAME,
  DEFAULT_CLUSTER,
  MAX_CANDIDATES,
  MAX_CHAIN,
  MAX_HASHES,
  MAX_ID,
  MAX_TS,
  MIN_TS,
  STORAGE_TIERS,
  hashProblem,
  type StorageTier,
} from "./event-bounds";

export const TELEMETRY_FORMAT = "switchyard.telemetry.v1";

const ts = z
  .number()
  .int("must be an integer (Unix ms)")
  .min(MIN_TS, "before 2000-01-01 (Unix ms expected)")
  .max(MAX_TS, "after 2100-01-01");
const id = z.string().min(1).max(MAX_ID);
const name = z.string().min(1).max(256);
const text = z.string().max(2_048);
const tokens = z.number().int().min(0).max(MAX_TOKENS);
const blocks = z.number().int().min(0).max(MAX_BLOCKS);
const count = z.number().int().min(0).max(MAX_COUNT);
const ratio = z.number().min(0).max(MAX_RATIO);
/** A latency in ms (fractions allowed), at most a day. */
const latencyMs = z.number().min(0).max(MAX_LATENCY_MS);

/** `cluster`: the cluster an event comes from (absent: DEFAULT_CLUSTER). */
const base = { id, ts, source: z.string().max(MAX_ID).optional(), cluster: clusterName.optional() };
const session = { session_id: id.optional(), trajectory_id: id.optional() };

export const workerRole = z.enum(WORKER_ROLES);
export const policyKind = z.enum(["retention", "autoscaling", "routing", "frontend"]);
export const removalReason = z.enum(REMOVAL_REASONS);
export const storageTier = z.enum(STORAGE_TIERS, { error: `must be one of ${STORAGE_TIERS.join(", ")}` });
const cachedByTier = z
  .object({ device: tokens.optional(), host: tokens.optional(), disk: tokens.optional(), shared: tokens.optional() })
  .strict();

const workerUp = z.object({
  ...base,
  kind: z.literal("worker.up"),
  worker_id: id,
  role: workerRole,
  model: name,
  kv_total_blocks: blocks,
  block_size: z.number().int().min(1).max(MAX_BLOCK_SIZE),
});

const workerDown = z.object({ ...base, kind: z.literal("worker.down"), worker_id: id, reason: text.optional() });

const workerStats = z
  .object({
    ...base,
    kind: z.literal("worker.stats"),
    worker_id: id,
    kv_active_blocks: blocks,
    kv_total_blocks: blocks,
    requests_running: count,
    requests_waiting: count,
    prefix_query_tokens: counter,
    prefix_hit_tokens: counter,
    preemptions: counter.optional(),
    batch_tokens: z.number().min(0).max(MAX_TOKENS).optional(),
  })
  .refine((e) => e.kv_active_blocks <= e.kv_total_blocks, {
    path: ["kv_active_blocks"],
    message: "exceeds kv_total_blocks",
  });

const kvStored = z.object({
  ...base,
  kind: z.literal("kv.stored"),
  worker_id: id,
  block_hashes: hashList(1),
  parent_hash: blockHash.nullable(),
  local_hashes: hashes.optional(),
  retention_class: z.string().min(1).max(64).optional(),
  session_id: id.optional(),
  storage_tier: storageTier.optional(),
  onboarded_from: storageTier.exclude(["device"]).optional(),
});

const kvRemoved = z.object({
  ...base,
  kind: z.literal("kv.removed"),
  worker_id: id,
  block_hashes: hashList(1),
  reason: removalReason,
  storage_tier: storageTier.optional(),
});

const kvCleared = z.object({ ...base, kind: z.literal("kv.cleared"), worker_id: id });

const candidate = z.object({
  worker_id: id,
  overlap_blocks: blocks,
  prefill_blocks: blocks,
  decode_blocks: blocks,
  cost: z.number().min(0).max(1e15),
});

const routeDecision = z
  .object({
    ...base,
    ...session,
    kind: z.literal("route.decision"),
    request_id: id,
    prompt_blocks: blocks,
    chosen_worker_id: id,
    candidates: z.array(candidate).min(1).max(MAX_CANDIDATES),
    overlap_credit: ratio,
    prefill_load_scale: ratio,
    temperature: z.number().min(0).max(1_000),
  })
  .refine((e) => e.candidates.some((c) => c.worker_id === e.chosen_worker_id), {
    path: ["chosen_worker_id"],
    message: "is not one of the candidates",
  });

const policyVersions = z.object({
  retention: z.number().int().min(0).max(1e9).optional(),
  autoscaling: z.number().int().min(0).max(1e9).optional(),
  routing: z.number().int().min(0).max(1e9).optional(),
  frontend: z.number().int().min(0).max(1e9).optional(),
});

const request = z
  .object({
    ...base,
    ...session,
    kind: z.literal("request"),
    request_id: id,
    parent_trajectory_id: id.optional(),
    session_type: z.string().min(1).max(64).optional(),
    harness: z.string().min(1).max(64).optional(),
    api: z.enum(REQUEST_APIS),
    model: name,
    worker_id: id.optional(),
    arrived_at: ts,
    first_token_at: ts.optional(),
    finished_at: ts.optional(),
    input_tokens: tokens,
    cached_tokens: tokens,
    output_tokens: tokens,
    reasoning_tokens: tokens.optional(),
    finish_reason: z.string().min(1).max(64).optional(),
    status: z.enum(REQUEST_STATUSES),
    agent_hints: z
      .object({
        priority: z.number().int().min(-1000).max(1000).optional(),
        osl: tokens.optional(),
        speculative_prefill: z.boolean().optional(),
      })
      .optional(),
    block_size: z.number().int().min(1).max(MAX_BLOCK_SIZE).optional(),
    sequence_hashes: chainHashes.optional(),
    local_hashes: chainHashes.optional(),
    prefix_of: z.object({ request_id: id, blocks: z.number().int().min(0).max(MAX_CHAIN) }).optional(),
    policy_versions: policyVersions.optional(),
    cached_tokens_by_tier: cachedByTier.optional(),
    prefetched_tokens: tokens.optional(),
    /** Time the request waited for its blocks to come back from lower tiers before it could be scheduled (ms). */
    onboard_ms: latencyMs.optional(),
    itl_ms_mean: latencyMs.optional(),
    itl_ms_p95: latencyMs.optional(),
    preemptions: count.optional(),
  })
  .refine(
    (e) =>
      !e.prefix_of ||
      e.prefix_of.blocks + Math.max(e.sequence_hashes?.length ?? 0, e.local_hashes?.length ?? 0) <= MAX_CHAIN,
    {
      path: ["prefix_of", "blocks"],
      message: `with the hashes carried exceeds ${MAX_CHAIN} blocks`,
    },
  )
  .refine((e) => e.cached_tokens <= e.input_tokens, { path: ["cached_tokens"], message: "exceeds input_tokens" })
  .refine((e) => e.first_token_at === undefined || e.first_token_at >= e.arrived_at, {
    path: ["first_token_at"],
    message: "is before arrived_at",
  })
  .refine((e) => e.finished_at === undefined || e.finished_at >= e.arrived_at, {
    path: ["finished_at"],
    message: "is before arrived_at",
  })
  .check((ctx) => {
    const t = ctx.value.cached_tokens_by_tier;
    if (t === undefined || tierSum(t) === ctx.value.cached_tokens) return;
    const message = `must sum to cached_tokens (${ctx.value.cached_tokens}), got ${tierSum(t)}`;
    ctx.issues.push({ code: "custom", message, input: t, path: ["cached_tokens_by_tier"] });
  });

/** Sum of per-tier cached tokens (absent tiers count 0). */
export function tierSum(t: { device?: number; host?: number; disk?: number; shared?: number }): number {
  return (t.device ?? 0) + (t.host ?? 0) + (t.disk ?? 0) + (t.shared ?? 0);
}

const tool = z
  .object({
    ...base,
    kind: z.literal("tool"),
    session_id: id,
    trajectory_id: id.optional(),
    request_id: id.optional(),
    tool_call_id: id,
    name,
    dispatched_at: ts.optional(),
    started_at: ts,
    ended_at: ts.optional(),
    status: z.enum(TOOL_STATUSES),
    output_bytes: z.number().int().min(0).max(1e12).optional(),
    output_tokens: tokens.optional(),
    truncated: z.boolean().optional(),
    budget: z.object({ unit: z.enum(BUDGET_UNITS), limit: z.number().int().min(1).max(1e12) }).optional(),
  })
  .refine((e) => e.ended_at === undefined || e.ended_at >= e.started_at, {
    path: ["ended_at"],
    message: "is before started_at",
  });

const reasoning = z
  .object({
    ...base,
    kind: z.literal("reasoning"),
    request_id: id,
    tool_call_id: id.optional(),
    tokens,
    started_at: ts,
    ended_at: ts,
  })
  .refine((e) => e.ended_at >= e.started_at, { path: ["ended_at"], message: "is before started_at" });

const plannerDecision = z.object({
  ...base,
  kind: z.literal("planner.decision"),
  role: workerRole,
  metric: z.enum(["prefill_queue", "decode_kv_utilization"]),
  observed: z.number().min(0).max(1e9),
  scale_up_threshold: z.number().min(0).max(1e9),
  scale_down_threshold: z.number().min(0).max(1e9),
  action: z.enum(["scale_up", "scale_down", "none"]),
  replicas_before: z.number().int().min(0).max(100_000),
  replicas_after: z.number().int().min(0).max(100_000),
  reason: text,
  /** The model whose workers the planner scales (a cluster serving two models runs a planner for each). */
  model: name.optional(),
});

const policyAck = z.object({
  ...base,
  kind: z.literal("policy.ack"),
  target: name,
  policy_kind: policyKind,
  version: z.number().int().min(0).max(1e9),
  status: z.enum(["applied", "rejected"]),
  message: text.optional(),
  /** The model whose policy line the version is of (absent: the cluster's own line; lib/policy-scope.ts). */
  model: name.optional(),
});

const variants = {
  "worker.up": workerUp,
  "worker.down": workerDown,
  "worker.stats": workerStats,
  "kv.stored": kvStored,
  "kv.removed": kvRemoved,
  "kv.cleared": kvCleared,
  "route.decision": routeDecision,
  request,
  tool,
  reasoning,
  "planner.decision": plannerDecision,
  "policy.ack": policyAck,
} as const;

export type EventKind = keyof typeof variants;
export const EVENT_KINDS = Object.keys(variants) as EventKind[];
export type TelemetryEvent = { [K in EventKind]: z.output<(typeof variants)[K]> }[EventKind];
/** An event as a sender writes it (counters may be numbers). */
export type TelemetryEventInput = { [K in EventKind]: z.input<(typeof variants)[K]> }[EventKind];
export type EventOf<K extends EventKind> = Extract<TelemetryEvent, { kind: K }>;

/** db/ stores events as the row shapes of db/rows/ingest.ts: each kind's shape must be its event's, field for field. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type AllTrue<T extends true> = T;
export type RowShapesMatch = [
  AllTrue<Same<EventKind, IngestKind>>,
  AllTrue<{ [K in EventKind]: Same<EventOf<K>, IngestRowOf<K>> }[EventKind]>,
];

export type ParseResult = { ok: true; event: TelemetryEvent } | { ok: false; error: string };

/** Validate one decoded JSON value as a telemetry event; the error names the field paths at fault. */
export function parseEvent(value: unknown): ParseResult {
  const kind = kindOf(value);
  if (typeof kind !== "string") return kind;
  const fast = fastParse(kind, value as Record<string, unknown>);
  return fast ? { ok: true, event: keyWorkers(fast) } : parseKind(kind, value);
}

/** parseEvent by the schema alone (no fast path): what the fast path must agree with. */
export function parseEventBySchema(value: unknown): ParseResult {
  const kind = kindOf(value);
  return typeof kind === "string" ? parseKind(kind, value) : kind;
}

/**
 * The event with each worker id it names replaced by that worker's stored key in the event's cluster
 * (lib/worker-key.ts): from here on a worker is one key, whichever cluster it is in. Changes the event in place.
 */
export function keyWorkers(e: TelemetryEvent): TelemetryEvent {
  const c = e.cluster;
  switch (e.kind) {
    case "route.decision":
      e.chosen_worker_id = workerKey(c, e.chosen_worker_id);
      for (const k of e.candidates) k.worker_id = workerKey(c, k.worker_id);
      break;
    case "request":
      if (e.worker_id !== undefined) e.worker_id = workerKey(c, e.worker_id);
      break;
    case "worker.up":
    case "worker.down":
    case "worker.stats":
    case "kv.stored":
    case "kv.removed":
    case "kv.cleared":
      e.worker_id = workerKey(c, e.worker_id);
      break;
  }
  return e;
}

function kindOf(value: unknown): EventKind | { ok: false; error: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, error: "event must be a JSON object" };
  const kind = (value as { kind?: unknown }).kind;
  if (typeof kind !== "string" || !Object.hasOwn(variants, kind)) {
    return {
      ok: false,
      error: `kind: ${kind === undefined ? "is required" : `unknown kind ${JSON.stringify(String(kind).slice(0, 40))}`}`,
    };
  }
  return kind as EventKind;
}

function parseKind(kind: EventKind, value: unknown): ParseResult {
  const result = variants[kind].safeParse(value);
  if (result.success) return { ok: true, event: keyWorkers(result.data as TelemetryEvent) };
  return { ok: false, error: formatIssues(result.error.issues) };
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join(".") : "event"}: ${i.message}`);
  if (issues.length > 3) shown.push(`and ${issues.length - 3} more`);
  return shown.join("; ");
}
