import {
  MAX_BLOCK_SIZE,
  MAX_CANDIDATES,
  MAX_CHAIN,
  MAX_COUNT,
  MAX_HASHES,
  MAX_RATIO,
  MAX_TOKENS,
  STORAGE_TIERS,
} from "./event-bounds";
import {
  counterText,
  GIVE_UP,
  head,
  isApi,
  isBlocks,
  isBudgetUnit,
  isHash,
  isHashes,
  isHashList,
  isId,
  isInt,
  isLatency,
  isLowerTier,
  isNum,
  isObj,
  isReason,
  isRequestStatus,
  isStr,
  isTier,
  isTokens,
  isToolStatus,
  isTs,
  optional,
  sessionHead,
} from "./event-fast-checks";
import type { Obj } from "./event-fast-checks";
import type { EventKind, TelemetryEvent } from "./events";

// The fast path of parseEvent for the kinds a cluster sends all the time (KV events, stats, requests, decisions,
// tools, reasoning). It checks the same bounds as the schema in events.ts, field by field in plain code, and builds
// the event the schema would build: the schema's keys in the schema's order, an optional key only when given,
// unknown keys dropped, counters as decimal strings, nested objects copied. It never produces an error: when
// anything is not plainly valid it returns null and the schema parses the value (so every error, and every
// decision on an edge case, is the schema's). Its contract, tested in event-fast-path.test.ts: whatever it accepts,
// the schema accepts with a deep-equal event in the same key order.

function kvStored(v: Obj): Obj | null {
  const out = head(v);
  if (!out) return GIVE_UP;
  out.kind = v.kind;
  if (!isId(v.worker_id) || !isHashList(v.block_hashes, 1, MAX_HASHES)) return GIVE_UP;
  out.worker_id = v.worker_id;
  out.block_hashes = v.block_hashes;
  const parent = v.parent_hash;
  if (parent !== null && !isHash(parent)) return GIVE_UP;
  out.parent_hash = parent;
  const ok =
    optional(out, v, "local_hashes", (x) => isHashList(x, 0, MAX_HASHES)) &&
    optional(out, v, "retention_class", (x) => isStr(x, 1, 64)) &&
    optional(out, v, "session_id", isId) &&
    optional(out, v, "storage_tier", isTier) &&
    optional(out, v, "onboarded_from", isLowerTier);
  return ok ? out : GIVE_UP;
}

function kvRemoved(v: Obj): Obj | null {
  const out = head(v);
  if (!out) return GIVE_UP;
  out.kind = v.kind;
  if (!isId(v.worker_id) || !isHashList(v.block_hashes, 1, MAX_HASHES) || !isReason(v.reason)) return GIVE_UP;
  out.worker_id = v.worker_id;
  out.block_hashes = v.block_hashes;
  out.reason = v.reason;
  return optional(out, v, "storage_tier", isTier) ? out : GIVE_UP;
}

function workerStats(v: Obj): Obj | null {
  const out = head(v);
  if (!out) return GIVE_UP;
  out.kind = v.kind;
  const { worker_id, kv_active_blocks: active, kv_total_blocks: total } = v;
  if (!isId(worker_id) || !isBlocks(active) || !isBlocks(total) || active > total) return GIVE_UP;
  if (!isInt(v.requests_running, 0, MAX_COUNT) || !isInt(v.requests_waiting, 0, MAX_COUNT)) return GIVE_UP;
  const query = counterText(v.prefix_query_tokens);
  const hit = counterText(v.prefix_hit_tokens);
  if (query === null || hit === null) return GIVE_UP;
  out.worker_id = worker_id;
  out.kv_active_blocks = active;
  out.kv_total_blocks = total;
  out.requests_running = v.requests_running;
  out.requests_waiting = v.requests_waiting;
  out.prefix_query_tokens = query;
  out.prefix_hit_tokens = hit;
  if (v.preemptions !== undefined) {
    const p = counterText(v.preemptions);
    if (p === null) return GIVE_UP;
    out.preemptions = p;
  } else if ("preemptions" in v) return GIVE_UP;
  return optional(out, v, "batch_tokens", (x) => isNum(x, 0, MAX_TOKENS)) ? out : GIVE_UP;
}

/** A nested object of optional fields (none unknown-key strict): its given keys in `keys` order, or null. */
function nested(v: unknown, keys: readonly [string, (x: unknown) => boolean][]): Obj | null {
  if (!isObj(v)) return GIVE_UP;
  const out: Obj = {};
  for (const [key, check] of keys) if (!optional(out, v, key, check)) return GIVE_UP;
  return out;
}

const HINTS: [string, (x: unknown) => boolean][] = [
  ["priority", (x) => isInt(x, -1000, 1000)],
  ["osl", isTokens],
  ["speculative_prefill", (x) => typeof x === "boolean"],
];
const VERSION = (x: unknown) => isInt(x, 0, 1e9);
const VERSIONS: [string, (x: unknown) => boolean][] = [
  ["retention", VERSION],
  ["autoscaling", VERSION],
  ["routing", VERSION],
  ["frontend", VERSION],
];
const TIER_KEYS = new Set<string>(STORAGE_TIERS);

function request(v: Obj): Obj | null {
  const out = sessionHead(v);
  if (!out || !isId(v.request_id)) return GIVE_UP;
  out.request_id = v.request_id;
  if (
    !optional(out, v, "parent_trajectory_id", isId) ||
    !optional(out, v, "session_type", (x) => isStr(x, 1, 64)) ||
    !optional(out, v, "harness", (x) => isStr(x, 1, 64)) ||
    !isApi(v.api) ||
    !isStr(v.model, 1, 256)
  )
    return GIVE_UP;
  out.api = v.api;
  out.model = v.model;
  if (!optional(out, v, "worker_id", isId) || !isTs(v.arrived_at)) return GIVE_UP;
  const arrived = v.arrived_at;
  out.arrived_at = arrived;
  const notBefore = (x: unknown) => isTs(x) && x >= arrived;
  if (!optional(out, v, "first_token_at", notBefore) || !optional(out, v, "finished_at", notBefore)) return GIVE_UP;
  const { input_tokens: input, cached_tokens: cached } = v;
  if (!isTokens(input) || !isTokens(cached) || cached > input || !isTokens(v.output_tokens)) return GIVE_UP;
  out.input_tokens = input;
  out.cached_tokens = cached;
  out.output_tokens = v.output_tokens;
  if (
    !optional(out, v, "reasoning_tokens", isTokens) ||
    !optional(out, v, "finish_reason", (x) => isStr(x, 1, 64)) ||
    !isRequestStatus(v.status)
  )
    return GIVE_UP;
  out.status = v.status;
  if (v.agent_hints !== undefined) {
    const hints = nested(v.agent_hints, HINTS);
    if (!hints) return GIVE_UP;
    out.agent_hints = hints;
  } else if ("agent_hints" in v) return GIVE_UP;
  if (
    !optional(out, v, "block_size", (x) => isInt(x, 1, MAX_BLOCK_SIZE)) ||
    !optional(out, v, "sequence_hashes", (x) => isHashes(x, 0, MAX_CHAIN)) ||
    !optional(out, v, "local_hashes", (x) => isHashes(x, 0, MAX_CHAIN))
  )
    return GIVE_UP;
  if (v.prefix_of !== undefined) {
    const p = v.prefix_of;
    if (!isObj(p) || !isId(p.request_id) || !isInt(p.blocks, 0, MAX_CHAIN)) return GIVE_UP;
    const carried = Math.max(
      (out.sequence_hashes as string[] | undefined)?.length ?? 0,
      (out.local_hashes as string[] | undefined)?.length ?? 0,
    );
    if (p.blocks + carried > MAX_CHAIN) return GIVE_UP;
    out.prefix_of = { request_id: p.request_id, blocks: p.blocks };
  } else if ("prefix_of" in v) return GIVE_UP;
  if (v.policy_versions !== undefined) {
    const versions = nested(v.policy_versions, VERSIONS);
    if (!versions) return GIVE_UP;
    out.policy_versions = versions;
  } else if ("policy_versions" in v) return GIVE_UP;
  if (v.cached_tokens_by_tier !== undefined) {
    const t = v.cached_tokens_by_tier;
    // Strict in the schema: an unknown key is an error, so it is the schema's to report.
    if (!isObj(t) || Object.keys(t).some((k) => !TIER_KEYS.has(k))) return GIVE_UP;
    const tiers: Obj = {};
    let sum = 0;
    for (const tier of STORAGE_TIERS) {
      if (!optional(tiers, t, tier, isTokens)) return GIVE_UP;
      sum += (tiers[tier] as number | undefined) ?? 0;
    }
    if (sum !== cached) return GIVE_UP;
    out.cached_tokens_by_tier = tiers;
  } else if ("cached_tokens_by_tier" in v) return GIVE_UP;
  const ok =
    optional(out, v, "prefetched_tokens", isTokens) &&
    optional(out, v, "onboard_ms", isLatency) &&
    optional(out, v, "itl_ms_mean", isLatency) &&
    optional(out, v, "itl_ms_p95", isLatency) &&
    optional(out, v, "preemptions", (x) => isInt(x, 0, MAX_COUNT));
  return ok ? out : GIVE_UP;
}

function routeDecision(v: Obj): Obj | null {
  const out = sessionHead(v);
  if (!out || !isId(v.request_id) || !isBlocks(v.prompt_blocks) || !isId(v.chosen_worker_id)) return GIVE_UP;
  out.request_id = v.request_id;
  out.prompt_blocks = v.prompt_blocks;
  out.chosen_worker_id = v.chosen_worker_id;
  const list = v.candidates;
  if (!Array.isArray(list) || list.length < 1 || list.length > MAX_CANDIDATES) return GIVE_UP;
  const candidates: Obj[] = new Array(list.length);
  let chosen = false;
  for (let i = 0; i < list.length; i++) {
    const c: unknown = list[i];
    if (!isObj(c) || !isId(c.worker_id) || !isBlocks(c.overlap_blocks) || !isBlocks(c.prefill_blocks)) return GIVE_UP;
    if (!isBlocks(c.decode_blocks) || !isNum(c.cost, 0, 1e15)) return GIVE_UP;
    chosen ||= c.worker_id === v.chosen_worker_id;
    candidates[i] = {
      worker_id: c.worker_id,
      overlap_blocks: c.overlap_blocks,
      prefill_blocks: c.prefill_blocks,
      decode_blocks: c.decode_blocks,
      cost: c.cost,
    };
  }
  if (!chosen) return GIVE_UP;
  out.candidates = candidates;
  if (!isNum(v.overlap_credit, 0, MAX_RATIO) || !isNum(v.prefill_load_scale, 0, MAX_RATIO)) return GIVE_UP;
  if (!isNum(v.temperature, 0, 1_000)) return GIVE_UP;
  out.overlap_credit = v.overlap_credit;
  out.prefill_load_scale = v.prefill_load_scale;
  out.temperature = v.temperature;
  return out;
}

function tool(v: Obj): Obj | null {
  const out = head(v);
  if (!out) return GIVE_UP;
  out.kind = v.kind;
  if (!isId(v.session_id)) return GIVE_UP;
  out.session_id = v.session_id;
  if (!optional(out, v, "trajectory_id", isId) || !optional(out, v, "request_id", isId)) return GIVE_UP;
  if (!isId(v.tool_call_id) || !isStr(v.name, 1, 256)) return GIVE_UP;
  out.tool_call_id = v.tool_call_id;
  out.name = v.name;
  if (!optional(out, v, "dispatched_at", isTs) || !isTs(v.started_at)) return GIVE_UP;
  const started = v.started_at;
  out.started_at = started;
  if (!optional(out, v, "ended_at", (x) => isTs(x) && x >= started) || !isToolStatus(v.status)) return GIVE_UP;
  out.status = v.status;
  if (
    !optional(out, v, "output_bytes", (x) => isInt(x, 0, 1e12)) ||
    !optional(out, v, "output_tokens", isTokens) ||
    !optional(out, v, "truncated", (x) => typeof x === "boolean")
  )
    return GIVE_UP;
  if (v.budget !== undefined) {
    const b = v.budget;
    if (!isObj(b) || !isBudgetUnit(b.unit) || !isInt(b.limit, 1, 1e12)) return GIVE_UP;
    out.budget = { unit: b.unit, limit: b.limit };
  } else if ("budget" in v) return GIVE_UP;
  return out;
}

function reasoning(v: Obj): Obj | null {
  const out = head(v);
  if (!out) return GIVE_UP;
  out.kind = v.kind;
  if (!isId(v.request_id)) return GIVE_UP;
  out.request_id = v.request_id;
  if (!optional(out, v, "tool_call_id", isId) || !isTokens(v.tokens) || !isTs(v.started_at)) return GIVE_UP;
  if (!isTs(v.ended_at) || v.ended_at < v.started_at) return GIVE_UP;
  out.tokens = v.tokens;
  out.started_at = v.started_at;
  out.ended_at = v.ended_at;
  return out;
}

const FAST: Partial<Record<EventKind, (v: Obj) => Obj | null>> = {
  "kv.stored": kvStored,
  "kv.removed": kvRemoved,
  "worker.stats": workerStats,
  request,
  "route.decision": routeDecision,
  tool,
  reasoning,
};

/** The event the schema would build from v (a JSON object of kind `kind`), or null: let the schema parse it. */
export function fastParse(kind: EventKind, v: Obj): TelemetryEvent | null {
  const parse = FAST[kind];
  return parse ? (parse(v) as TelemetryEvent | null) : null;
}
