import type { EventOf } from "../ingest/events";
import { contentId } from "../sim/hashing";
import { HashView, SEG_CONVERSATION, TokenStream } from "../sim/stream";
import type { TraceEntry } from "../sim/workload-trace";
import type { RecordedTurn } from "./types";

// Mooncake-format traces (parsed and checked by the simulator's parser, server/sim/workload-trace.ts) as recorded
// requests: one session per session_id, else one per request. A hash id is the content of one block after the blocks
// before it, so chains are built as the simulator builds them (the same ids give the same sequence hashes); local
// hashes are the ids' own content hashes. No cached tokens or token times were measured: those stay 0 / absent.

export type MooncakeOptions = { startMs: number; blockSize: number; source: string; model?: string };

const NS_MOONCAKE = 0x7ace;

/** Request events (switchyard.telemetry.v1) for parsed trace entries, in trace order. Pure. */
export function mooncakeRequests(entries: readonly TraceEntry[], opts: MooncakeOptions): EventOf<"request">[] {
  const lastArrival = new Map<string, number>();
  const prefix = `mc-${opts.startMs.toString(36)}`;
  return entries.map((e) => {
    const session = e.sessionId !== null ? `mooncake-${e.sessionId}` : `mooncake-${opts.startMs}-${e.line}`;
    const prev = e.sessionId !== null ? lastArrival.get(session) : undefined;
    const offset = e.delayMs !== null && prev !== undefined ? prev - opts.startMs + e.delayMs : e.timestamp;
    const arrived = Math.round(opts.startMs + Math.max(offset, e.timestamp));
    lastArrival.set(session, arrived);
    const { seq, local } = mooncakeChains(e.hashIds, e.inputLength, opts.blockSize);
    const id = `${prefix}-${e.line}`;
    return {
      id,
      kind: "request",
      ts: arrived,
      request_id: e.requestId ?? id,
      session_id: session,
      trajectory_id: session,
      session_type: "trace",
      harness: "mooncake",
      api: "chat_completions",
      model: opts.model ?? "mooncake-trace",
      arrived_at: arrived,
      input_tokens: e.inputLength,
      cached_tokens: 0,
      output_tokens: e.outputLength,
      status: "ok",
      block_size: opts.blockSize,
      sequence_hashes: seq,
      local_hashes: local,
      source: opts.source,
    } as EventOf<"request">;
  });
}

/** Sequence and local hashes of the full blocks a request's hash ids cover (`blockSize` tokens per id). */
export function mooncakeChains(
  hashIds: readonly number[],
  inputLength: number,
  blockSize: number,
): { seq: string[]; local: string[] } {
  const stream = new TokenStream(blockSize);
  let left = inputLength;
  for (const h of hashIds) {
    const take = Math.min(blockSize, left);
    if (take <= 0) break;
    stream.append(contentId(NS_MOONCAKE, h % 0x1_0000_0000, Math.floor(h / 0x1_0000_0000)), take, SEG_CONVERSATION);
    left -= take;
  }
  const view = new HashView(null);
  view.extend(stream);
  return { seq: view.seq, local: view.local };
}

/** Decimal u64 strings as (hi, lo) 32-bit pairs. */
export function decimalPairs(list: readonly string[]): Uint32Array {
  const out = new Uint32Array(list.length * 2);
  list.forEach((d, i) => {
    const v = BigInt(d);
    out[2 * i] = Number(v >> 32n);
    out[2 * i + 1] = Number(v & 0xffffffffn);
  });
  return out;
}

/** Recorded turns of request events as the replay reads them (for callers holding events, not rows). */
export function turnsOfRequests(events: readonly EventOf<"request">[], from: number): RecordedTurn[] {
  return events
    .map((e) => ({
      requestId: e.request_id,
      sessionId: e.session_id ?? e.request_id,
      trajectoryId: e.trajectory_id ?? e.session_id ?? e.request_id,
      parentTrajectoryId: e.parent_trajectory_id ?? null,
      sessionType: e.session_type ?? "unknown",
      harness: e.harness ?? null,
      arrivedAt: e.arrived_at,
      firstTokenAt: e.first_token_at ?? null,
      finishedAt: e.finished_at ?? null,
      inputTokens: e.input_tokens,
      cachedTokens: e.cached_tokens,
      outputTokens: e.output_tokens,
      reasoningTokens: e.reasoning_tokens ?? 0,
      status: e.status,
      hints: e.agent_hints ?? {},
      blockSize: e.block_size ?? null,
      blocks: e.local_hashes?.length
        ? decimalPairs(e.local_hashes)
        : e.sequence_hashes
          ? decimalPairs(e.sequence_hashes)
          : null,
      workerId: e.worker_id ?? null,
      firstSeq: e.sequence_hashes?.length
        ? (Array.from(decimalPairs(e.sequence_hashes.slice(0, 1))) as [number, number])
        : null,
      phase: (e.arrived_at < from ? "warmup" : "window") as RecordedTurn["phase"],
    }))
    .sort((a, b) => a.arrivedAt - b.arrivedAt);
}
