import type { ToolCall, Trajectory, TurnPlan } from "./trajectory";
import { ms } from "./cluster";
import type { Scenario } from "./scenarios";
import { FAST_JSON, lazyList, num, quote, writeOpen, type FastJson, type LineOut } from "./json-lines";
import { summarize } from "./itl";
import type { HashView } from "./stream";
import type { EventBody, SimRequest } from "./types";
import { cachedByTier } from "./tier-hit";
import type { RemovalReason } from "./block-pool";
import type { RemovedHashes } from "./removed-hashes";

export const CHAIN_VIEW: unique symbol = Symbol("chainView");
/** Marks an event body that already has its `id` key first, to be set in place by the engine. */
export const LAZY_ID: unique symbol = Symbol("lazyId");

/** What a request event knows about its chains: the hash view they are a prefix of, and its compact NDJSON form. */
export type ChainSource = {
  [CHAIN_VIEW]?: {
    view: HashView;
    nBlocks: number;
    /** Writes the compact line: `prefix_of` names the earlier request whose first `blocks` blocks this one omits. */
    compactJson: (e: { id: string }, prefix: { request_id: string; blocks: number }, out: LineOut) => void;
  };
};

// Telemetry events (docs/telemetry-format.md) built from the core's objects; times are rounded to Unix ms.

/** The request event of a finished model call (hash arrays last, with fast NDJSON forms: full and compact). */
export function requestEvent(
  req: SimRequest,
  scenario: Pick<Scenario, "model" | "blockSize">,
): EventBody & FastJson & ChainSource {
  const finished = req.finishedAt ?? req.arrivedAt;
  const status = req.outcome;
  // Members assigned in JSON.stringify's order, optional ones only when present (no temporary object per group).
  const head: Record<string, unknown> = {
    kind: "request",
    ts: ms(finished),
    request_id: req.id,
    session_id: req.sessionId,
    trajectory_id: req.trajectoryId,
  };
  if (req.parentTrajectoryId) head.parent_trajectory_id = req.parentTrajectoryId;
  head.session_type = req.sessionType;
  head.harness = req.harness;
  head.api = req.api;
  head.model = scenario.model;
  if (req.workerId) head.worker_id = req.workerId;
  head.arrived_at = ms(req.arrivedAt);
  if (req.firstTokenAt !== null && status !== "error") head.first_token_at = ms(req.firstTokenAt);
  head.finished_at = ms(finished);
  head.input_tokens = req.inputTokens;
  head.cached_tokens = req.cachedTokens;
  head.output_tokens = req.outputTokens;
  if (req.reasoningTokens > 0) head.reasoning_tokens = req.reasoningTokens;
  head.finish_reason = req.finishReason;
  head.status = status;
  head.agent_hints = req.hints;
  head.policy_versions = req.policyVersions;
  head.block_size = scenario.blockSize;
  decodeTelemetry(req, head);
  if (req.tierHit) tierTelemetry(req, scenario.blockSize, head);
  const event: Record<string | symbol, unknown> = { id: "", ...head };
  Object.defineProperty(event, "sequence_hashes", REQUEST_SEQ);
  Object.defineProperty(event, "local_hashes", REQUEST_LOCAL);
  event[HEAD] = head;
  event[FAST_JSON] = requestJson;
  event[CHAIN_VIEW] = { view: req.view, nBlocks: req.nBlocks, compactJson: requestCompactJson };
  event[LAZY_ID] = true;
  return event as unknown as EventBody & FastJson & ChainSource;
}

/** Where a request event keeps its head (the members before its chains), for its NDJSON line. */
const HEAD: unique symbol = Symbol("head");

type RequestSlots = { id: string; [HEAD]: object; [CHAIN_VIEW]: { view: HashView; nBlocks: number } };

/** JSON.stringify of a request event as requestEvent builds it: the head, then the full chains. */
function requestJson(e: { id: string }, out: LineOut): void {
  const r = e as RequestSlots;
  const c = r[CHAIN_VIEW];
  writeOpen(out, r.id, r[HEAD]);
  writeChains(out, c.view, SEQUENCE_KEY, 0, c.nBlocks);
}

/** The compact line of a request event: `prefix_of` names the earlier request whose first `blocks` blocks it omits. */
function requestCompactJson(e: { id: string }, prefix: { request_id: string; blocks: number }, out: LineOut): void {
  const r = e as RequestSlots;
  const c = r[CHAIN_VIEW];
  writeOpen(out, r.id, r[HEAD]);
  out.text(`,"prefix_of":{"request_id":${quote(prefix.request_id)},"blocks":${num(prefix.blocks)}}`);
  writeChains(out, c.view, SEQUENCE_KEY, prefix.blocks, c.nBlocks);
}

/** A request's chains as strings, made when first read (JSON.stringify, tests) and then kept as plain data. */
const REQUEST_SEQ = lazyList("sequence_hashes", (e) => {
  const c = (e as RequestSlots)[CHAIN_VIEW];
  return c.view.seq.slice(0, c.nBlocks);
});
const REQUEST_LOCAL = lazyList("local_hashes", (e) => {
  const c = (e as RequestSlots)[CHAIN_VIEW];
  return c.view.local.slice(0, c.nBlocks);
});

/** Cached tokens by the tier they came from and prefetched tokens, on a cluster with lower tiers: set on `head`. */
function tierTelemetry(req: SimRequest, blockSize: number, head: Record<string, unknown>): void {
  const { byTier, prefetched } = cachedByTier(req, req.tierHit!, blockSize);
  const wait = Math.round(req.tierHit!.onboardMs * 1000) / 1000;
  head.cached_tokens_by_tier = byTier;
  head.prefetched_tokens = prefetched;
  if (wait > 0) head.onboard_ms = wait;
}

/** Inter-token latency (rounded to µs) and preemptions of a request, when it decoded or was preempted: set on `head`. */
function decodeTelemetry(req: SimRequest, head: Record<string, unknown>): void {
  const { mean, p95 } = req.itlRuns === null ? { mean: null, p95: null } : summarize(req.itlRuns);
  if (mean !== null && p95 !== null) {
    head.itl_ms_mean = Math.round(mean * 1000) / 1000;
    head.itl_ms_p95 = Math.round(p95 * 1000) / 1000;
  }
  if (req.workerId !== null) head.preemptions = req.preemptions;
}

/**
 * A kv.stored event for blocks [from, to) of a request's prompt. Its hash lists are strings made when first read (shared
 * getters); its NDJSON line copies their text from the view, so a run that only writes or discards events makes none.
 */
export function storedEvent(
  workerId: string,
  req: SimRequest,
  from: number,
  to: number,
  retentionClass: string,
  ts: number,
): EventBody & FastJson {
  const { view } = req;
  // Its id slot first (LAZY_ID: the engine fills it in place), then the members in JSON.stringify's order; every
  // event takes the same steps, so they share one hidden class.
  const event: Record<string | symbol, unknown> = {
    id: "",
    kind: "kv.stored",
    ts,
    worker_id: workerId,
    parent_hash: from > 0 ? view.seqAt(from - 1) : null,
    retention_class: retentionClass,
    session_id: req.sessionId,
  };
  Object.defineProperty(event, "block_hashes", STORED_SEQ);
  Object.defineProperty(event, "local_hashes", STORED_LOCAL);
  event[FAST_JSON] = storedJson;
  event[LAZY_ID] = true;
  event[STORED] = view;
  event[FROM] = from;
  event[TO] = to;
  return event as unknown as EventBody & FastJson;
}

/** Where a kv.stored event keeps its view and block range. */
const STORED: unique symbol = Symbol("stored");
const FROM: unique symbol = Symbol("from");
const TO: unique symbol = Symbol("to");

type StoredSlots = {
  id: string;
  ts: number;
  worker_id: string;
  parent_hash: string | null;
  retention_class: string;
  session_id: string;
  [STORED]: HashView;
  [FROM]: number;
  [TO]: number;
};

const STORED_SEQ = lazyList("block_hashes", (e) => {
  const r = e as StoredSlots;
  return r[STORED].seq.slice(r[FROM], r[TO]);
});
const STORED_LOCAL = lazyList("local_hashes", (e) => {
  const r = e as StoredSlots;
  return r[STORED].local.slice(r[FROM], r[TO]);
});

/** JSON.stringify of a kv.stored event as storedEvent builds it. */
function storedJson(e: { id: string }, out: LineOut): void {
  const r = e as StoredSlots;
  const parent = r.parent_hash === null ? "null" : quote(r.parent_hash);
  out.text(
    `{"id":${quote(r.id)},"kind":"kv.stored","ts":${num(r.ts)},"worker_id":${quote(r.worker_id)},"parent_hash":${parent},"retention_class":${quote(r.retention_class)},"session_id":${quote(r.session_id)}`,
  );
  writeChains(out, r[STORED], BLOCK_KEY, r[FROM], r[TO]);
}

const SEQUENCE_KEY = ',"sequence_hashes":[';
const BLOCK_KEY = ',"block_hashes":[';

/** The two trailing arrays of a request or kv.stored line (sequence hashes under `seqKey`, then local) and its closing brace. */
function writeChains(out: LineOut, view: HashView, seqKey: string, from: number, to: number): void {
  out.ascii(seqKey);
  view.writeItems(out, "seq", from, to);
  out.ascii('],"local_hashes":[');
  view.writeItems(out, "local", from, to);
  out.ascii("]}");
}

/**
 * A kv.removed event. Its block_hashes are strings made when first read (one shared getter); its NDJSON line writes the
 * hashes' digits from their halves (decimal strings need no escaping), so a run that only writes or discards events
 * never makes a string per removed block.
 */
export function removedEvent(
  workerId: string,
  hashes: RemovedHashes,
  reason: RemovalReason,
  ts: number,
): EventBody & FastJson {
  // Its id slot first (LAZY_ID: the engine fills it in place), then the members in JSON.stringify's order; every
  // event takes the same steps, so they share one hidden class.
  const event: Record<string | symbol, unknown> = { id: "", kind: "kv.removed", ts, worker_id: workerId };
  Object.defineProperty(event, "block_hashes", REMOVED_HASHES);
  event.reason = reason;
  event[FAST_JSON] = removedJson;
  event[LAZY_ID] = true;
  event[REMOVED] = hashes;
  return event as unknown as EventBody & FastJson;
}

/**
 * How many blocks a kv.removed event removed, without making its hashes' strings (removedEvent's events keep only
 * their halves until block_hashes is read; any other event is counted from its list).
 */
export function removedCount(e: { block_hashes: readonly unknown[] }): number {
  const hashes = (e as unknown as Record<symbol, RemovedHashes | undefined>)[REMOVED];
  return hashes === undefined ? e.block_hashes.length : hashes.length;
}

/** Where a kv.removed event keeps its hashes' halves. */
const REMOVED: unique symbol = Symbol("removed");
const REMOVED_HASHES = lazyList("block_hashes", (e) => (e as { [REMOVED]: RemovedHashes })[REMOVED].strings());

/** JSON.stringify of a kv.removed event as removedEvent builds it. */
function removedJson(e: { id: string }, out: LineOut): void {
  const r = e as unknown as { id: string; ts: number; worker_id: string; reason: string; [REMOVED]: RemovedHashes };
  out.text(
    `{"id":${quote(r.id)},"kind":"kv.removed","ts":${num(r.ts)},"worker_id":${quote(r.worker_id)},"block_hashes":[`,
  );
  r[REMOVED].writeItems(out);
  out.text(`],"reason":${quote(r.reason)}}`);
}

/** Reasoning spans of a turn, each linked to the tool call it precedes. */
export function reasoningEvents(req: SimRequest, plan: TurnPlan): EventBody[] {
  if (req.reasoningTokens <= 0 || req.firstTokenAt === null || req.finishedAt === null || req.outcome === "error")
    return [];
  const first = req.firstTokenAt;
  const span = req.finishedAt - first;
  const share = req.reasoningTokens / Math.max(1, req.outputTokens);
  const calls = plan.tools;
  const n = Math.max(1, calls.length);
  const out: EventBody[] = [];
  for (let k = 0; k < n; k++) {
    const start = first + span * (k / n) * 0.95;
    const end = start + ((span * 0.95) / n) * share;
    const call = calls[k];
    out.push({
      kind: "reasoning",
      ts: ms(req.finishedAt),
      request_id: req.id,
      ...(call ? { tool_call_id: call.id } : {}),
      tokens:
        k === n - 1
          ? req.reasoningTokens - Math.floor(req.reasoningTokens / n) * (n - 1)
          : Math.floor(req.reasoningTokens / n),
      started_at: ms(start),
      ended_at: ms(end),
    });
  }
  return out;
}

/** A finished tool call. */
export function toolEvent(traj: Trajectory, call: ToolCall): EventBody {
  return {
    kind: "tool",
    ts: ms(call.endedAt),
    session_id: traj.session.id,
    trajectory_id: traj.id,
    request_id: call.requestId,
    tool_call_id: call.id,
    name: call.spec.name,
    dispatched_at: ms(call.dispatchedAt),
    started_at: ms(call.startedAt),
    ended_at: ms(call.endedAt),
    status: call.failed ? "error" : "succeeded",
    output_bytes: call.sentBytes,
    output_tokens: call.tokens,
    truncated: call.truncated,
    ...(call.budget ? { budget: { unit: call.budget.unit, limit: call.budget.limit } } : {}),
  };
}
