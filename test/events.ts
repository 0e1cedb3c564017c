import { parseEvent, type EventKind, type TelemetryEvent } from "../server/ingest/events";

/** 2025-11-29T12:00:00Z: a minute-aligned instant inside the accepted ts bounds. */
export const T0 = 1_764_417_600_000;

export type Raw = Record<string, unknown>;

/** One valid event per kind with only its required fields (override anything, including id). */
export const minimal: Record<EventKind, (o?: Raw) => Raw> = {
  "worker.up": (o = {}) => ({
    id: "up-1",
    kind: "worker.up",
    ts: T0,
    worker_id: "w1",
    role: "decode",
    model: "llama",
    kv_total_blocks: 8192,
    block_size: 16,
    ...o,
  }),
  "worker.down": (o = {}) => ({ id: "down-1", kind: "worker.down", ts: T0, worker_id: "w1", ...o }),
  "worker.stats": (o = {}) => ({
    id: "stats-1",
    kind: "worker.stats",
    ts: T0,
    worker_id: "w1",
    kv_active_blocks: 4100,
    kv_total_blocks: 8192,
    requests_running: 12,
    requests_waiting: 3,
    prefix_query_tokens: "918272",
    prefix_hit_tokens: "801002",
    ...o,
  }),
  "kv.stored": (o = {}) => ({
    id: "kvs-1",
    kind: "kv.stored",
    ts: T0,
    worker_id: "w1",
    block_hashes: ["1", "18446744073709551615"],
    parent_hash: null,
    ...o,
  }),
  "kv.removed": (o = {}) => ({
    id: "kvr-1",
    kind: "kv.removed",
    ts: T0,
    worker_id: "w1",
    block_hashes: ["7"],
    reason: "capacity",
    ...o,
  }),
  "kv.cleared": (o = {}) => ({ id: "kvc-1", kind: "kv.cleared", ts: T0, worker_id: "w1", ...o }),
  "route.decision": (o = {}) => ({
    id: "rd-1",
    kind: "route.decision",
    ts: T0,
    request_id: "r1",
    prompt_blocks: 10,
    chosen_worker_id: "w1",
    candidates: [
      { worker_id: "w1", overlap_blocks: 4, prefill_blocks: 6, decode_blocks: 100, cost: 12.5 },
      { worker_id: "w2", overlap_blocks: 9, prefill_blocks: 1, decode_blocks: 900, cost: 40 },
    ],
    overlap_credit: 1,
    prefill_load_scale: 1,
    temperature: 0,
    ...o,
  }),
  request: (o = {}) => ({
    id: "req-1",
    kind: "request",
    ts: T0,
    request_id: "r1",
    api: "chat_completions",
    model: "llama",
    arrived_at: T0,
    input_tokens: 1000,
    cached_tokens: 800,
    output_tokens: 50,
    status: "ok",
    ...o,
  }),
  tool: (o = {}) => ({
    id: "tool-1",
    kind: "tool",
    ts: T0,
    session_id: "s1",
    tool_call_id: "tc1",
    name: "bash",
    started_at: T0,
    status: "running",
    ...o,
  }),
  reasoning: (o = {}) => ({
    id: "rs-1",
    kind: "reasoning",
    ts: T0,
    request_id: "r1",
    tokens: 300,
    started_at: T0,
    ended_at: T0 + 1500,
    ...o,
  }),
  "planner.decision": (o = {}) => ({
    id: "pd-1",
    kind: "planner.decision",
    ts: T0,
    role: "prefill",
    metric: "prefill_queue",
    observed: 12,
    scale_up_threshold: 10,
    scale_down_threshold: 2,
    action: "scale_up",
    replicas_before: 2,
    replicas_after: 3,
    reason: "queue above threshold",
    ...o,
  }),
  "policy.ack": (o = {}) => ({
    id: "pa-1",
    kind: "policy.ack",
    ts: T0,
    target: "frontend",
    policy_kind: "retention",
    version: 3,
    status: "applied",
    ...o,
  }),
};

/** The same events with every optional field present. */
export const full: Record<EventKind, (o?: Raw) => Raw> = {
  "worker.up": (o = {}) => minimal["worker.up"]({ source: "sim", ...o }),
  "worker.down": (o = {}) => minimal["worker.down"]({ source: "sim", reason: "drained", ...o }),
  "worker.stats": (o = {}) => minimal["worker.stats"]({ source: "sim", ...o }),
  "kv.stored": (o = {}) =>
    minimal["kv.stored"]({
      source: "sim",
      parent_hash: "42",
      local_hashes: ["3", "4"],
      retention_class: "system_prompt",
      session_id: "s1",
      ...o,
    }),
  "kv.removed": (o = {}) => minimal["kv.removed"]({ source: "sim", reason: "agent_end", ...o }),
  "kv.cleared": (o = {}) => minimal["kv.cleared"]({ source: "sim", ...o }),
  "route.decision": (o = {}) =>
    minimal["route.decision"]({ source: "sim", session_id: "s1", trajectory_id: "t1", ...o }),
  request: (o = {}) =>
    minimal.request({
      source: "sim",
      session_id: "s1",
      trajectory_id: "t1",
      parent_trajectory_id: "t0",
      session_type: "coding",
      harness: "claude-code",
      worker_id: "w1",
      first_token_at: T0 + 150,
      finished_at: T0 + 2000,
      reasoning_tokens: 20,
      finish_reason: "tool_calls",
      agent_hints: { priority: 5, osl: 200, speculative_prefill: true },
      block_size: 16,
      sequence_hashes: ["11", "12"],
      local_hashes: ["21", "22"],
      policy_versions: { retention: 12, autoscaling: 1, routing: 2, frontend: 3 },
      ...o,
    }),
  tool: (o = {}) =>
    minimal.tool({
      source: "sim",
      trajectory_id: "t1",
      request_id: "r1",
      dispatched_at: T0 - 10,
      ended_at: T0 + 500,
      status: "succeeded",
      output_bytes: 2048,
      output_tokens: 512,
      truncated: true,
      budget: { unit: "tokens", limit: 4096 },
      ...o,
    }),
  reasoning: (o = {}) => minimal.reasoning({ source: "sim", tool_call_id: "tc1", ...o }),
  "planner.decision": (o = {}) => minimal["planner.decision"]({ source: "sim", ...o }),
  "policy.ack": (o = {}) => minimal["policy.ack"]({ source: "sim", message: "ok", ...o }),
};

/** Parse a raw event that must be valid (test setup). */
/** A turn of session s1 / trajectory main from sender "sim". */
export const turn = (n: number, o: Raw = {}) =>
  minimal.request({
    id: `ev-${n}`,
    request_id: `r${n}`,
    session_id: "s1",
    trajectory_id: "main",
    source: "sim",
    arrived_at: T0 + n * 1_000,
    ts: T0 + n * 1_000,
    ...o,
  });

export function parsed(raw: Raw): TelemetryEvent {
  const r = parseEvent(raw);
  if (!r.ok) throw new Error(`fixture is invalid: ${r.error}`);
  return r.event;
}

/** A worker.stats event for worker w at ts with counters and gauges (id derived from both). */
export function stats(w: string, ts: number, query: number | string, hit: number | string, o: Raw = {}): Raw {
  return minimal["worker.stats"]({
    id: `${w}-s-${ts}`,
    ts,
    worker_id: w,
    prefix_query_tokens: query,
    prefix_hit_tokens: hit,
    ...o,
  });
}

/** NDJSON text for events. */
export function ndjson(events: readonly unknown[]): string {
  return events.map((e) => JSON.stringify(e)).join("\n") + "\n";
}
