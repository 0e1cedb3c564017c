import type { TelemetryEventInput } from "../../ingest/events";

// dynamo.agent.trace.v1 and dynamo.fpm.trace.v1 records → switchyard.telemetry.v1 events. Pure and stateful per file:
// tool_start waits for its tool_end/tool_error, and tool calls named by request_end become spans only when the file
// has no harness tool records for that session (then they are inferred from the next turn of the same trajectory).

export const AGENT_SCHEMA = "dynamo.agent.trace.v1";
export const FPM_SCHEMA = "dynamo.fpm.trace.v1";
const SOURCE = "dynamo-trace";
const MAX_ID = 128;
/** At most one load sample per worker per this many ms (full-mode FPM writes one per forward pass). */
export const FPM_SAMPLE_MS = 1_000;
const MAX_PENDING = 100_000;

/** A load sample from the forward-pass trace; KV and prefix counters are filled in by the importer. */
export type LoadSample = {
  line: number;
  ts: number;
  worker_id: string;
  requests_running: number;
  requests_waiting: number;
};

export type Mapped = { events: TelemetryEventInput[]; samples: LoadSample[]; error?: string };

type Obj = Record<string, unknown>;
type ToolCall = {
  session: string;
  trajectory?: string;
  requestId: string;
  id: string;
  name: string;
  at: number;
  line: number;
};
type Turn = { key: string; arrivedAt: number };

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : typeof v === "number" && Number.isFinite(v) ? String(v) : undefined;
const num = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v)
    ? v
    : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))
      ? Number(v)
      : undefined;
const int = (v: unknown): number | undefined => {
  const n = num(v);
  return n === undefined ? undefined : Math.max(0, Math.round(n));
};

/** An event id of at most 128 characters: long keys keep their head and a hash of the whole. */
export function eventId(...parts: string[]): string {
  const id = parts.join(":");
  if (id.length <= MAX_ID) return id;
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < id.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(id.charCodeAt(i))) * 0x100000001b3n);
  return `${id.slice(0, MAX_ID - 17)}~${h.toString(16).padStart(16, "0")}`;
}

/** A Dynamo worker as a Switchyard worker id: its worker_id, with "-dp<rank>" for data-parallel ranks above 0. */
export function workerName(workerId: string, dpRank: number | undefined): string {
  return (dpRank ? `${workerId}-dp${dpRank}` : workerId).slice(0, MAX_ID);
}

/** The worker that served a request: decode worker (disaggregated or aggregated), else the prefill worker. */
function workerOf(w: Obj): string | undefined {
  const decode = str(w.decode_worker_id);
  if (decode) return workerName(decode, int(w.decode_dp_rank));
  const prefill = str(w.prefill_worker_id);
  return prefill ? workerName(prefill, int(w.prefill_dp_rank)) : undefined;
}

/** The u64 decimal strings of `input_sequence_hashes` read from the raw line (JSON numbers above 2^53 lose digits). */
export function rawSequenceHashes(text: string): string[] | undefined {
  const m = /"input_sequence_hashes"\s*:\s*\[([^\]]*)\]/.exec(text);
  if (!m) return undefined;
  const body = m[1]!.trim();
  if (body === "") return [];
  return body.split(",").map((s) => s.trim().replace(/^"(.*)"$/, "$1"));
}

function context(rec: Obj) {
  const c = isObj(rec.agent_context) ? rec.agent_context : {};
  return {
    session: str(c.session_id) ?? str(c.workflow_id),
    trajectory: str(c.trajectory_id) ?? str(c.program_id),
    parent: str(c.parent_trajectory_id) ?? str(c.parent_program_id),
    sessionType: str(c.session_type_id) ?? str(c.workflow_type_id),
  };
}

const TOOL_STATUS: Record<string, "running" | "succeeded" | "error" | "cancelled"> = {
  running: "running",
  succeeded: "succeeded",
  ok: "succeeded",
  success: "succeeded",
  error: "error",
  failed: "error",
  timeout: "cancelled",
  cancelled: "cancelled",
  canceled: "cancelled",
};

/** A mapper for one file: push each line, then finish() for the tool spans that waited for the end of the file. */
export function createTraceMapper() {
  const toolCalls = new Map<string, ToolCall>();
  const toolStarts = new Map<string, { at: number; trajectory?: string }>();
  const harnessTools = new Set<string>();
  const turns: Turn[] = [];
  const lastSample = new Map<string, { ts: number; counter?: number }>();
  let gaps = 0;

  function mapRequest(rec: Obj, text: string, at: number): Mapped {
    const r = isObj(rec.request) ? rec.request : null;
    if (!r) return { events: [], samples: [], error: "request_end without a request object" };
    const requestId = str(r.request_id);
    if (!requestId) return { events: [], samples: [], error: "request.request_id is missing" };
    const c = context(rec);
    const received = num(r.request_received_ms);
    const total = num(r.total_time_ms);
    const arrivedAt = Math.round(received ?? (total !== undefined ? at - total : at));
    const ttft = num(r.ttft_ms);
    const replay = isObj(r.replay) ? r.replay : {};
    const input = int(r.input_tokens) ?? int(replay.input_length) ?? 0;
    const fin = isObj(r.finish_reason_metadata) ? r.finish_reason_metadata : {};
    const finishReason = str(fin.finish_reason);
    const worker = isObj(r.worker) ? r.worker : {};
    const hashes = rawSequenceHashes(text);
    const event: TelemetryEventInput = {
      id: eventId("dyn-req", requestId),
      kind: "request",
      ts: Math.round(at),
      source: SOURCE,
      request_id: requestId.slice(0, MAX_ID),
      ...(c.session && { session_id: c.session.slice(0, MAX_ID) }),
      ...(c.trajectory && { trajectory_id: c.trajectory.slice(0, MAX_ID) }),
      ...(c.parent && { parent_trajectory_id: c.parent.slice(0, MAX_ID) }),
      ...(c.sessionType && { session_type: c.sessionType.slice(0, 64) }),
      api: "chat_completions",
      model: (str(r.model) ?? "unknown").slice(0, 256),
      ...(workerOf(worker) && { worker_id: workerOf(worker)! }),
      arrived_at: arrivedAt,
      ...(ttft !== undefined && { first_token_at: Math.round(arrivedAt + ttft) }),
      finished_at: Math.max(arrivedAt, Math.round(total !== undefined ? arrivedAt + total : at)),
      input_tokens: input,
      cached_tokens: Math.min(input, int(r.cached_tokens) ?? 0),
      output_tokens: int(r.output_tokens) ?? 0,
      ...(finishReason && { finish_reason: finishReason.slice(0, 64) }),
      status:
        finishReason === "error"
          ? "error"
          : finishReason === "cancelled" || finishReason === "abort"
            ? "cancelled"
            : "ok",
      ...(int(replay.trace_block_size) && { block_size: int(replay.trace_block_size) }),
      ...(hashes && { sequence_hashes: hashes }),
    } as TelemetryEventInput;
    if (c.session) {
      turns.push({ key: `${c.session}\u0000${c.trajectory ?? ""}`, arrivedAt });
      for (const call of Array.isArray(fin.tool_calls) ? fin.tool_calls.slice(0, 1_024) : []) {
        const id = isObj(call) ? str(call.id) : undefined;
        if (!id || toolCalls.size >= MAX_PENDING) continue;
        toolCalls.set(`${c.session}\u0000${id}`, {
          session: c.session,
          trajectory: c.trajectory,
          requestId,
          id,
          name: str((call as Obj).name) ?? "tool",
          at: Math.round(at),
          line: 0,
        });
      }
    }
    return { events: [event], samples: [] };
  }

  function mapTool(rec: Obj, type: string, at: number): Mapped {
    const t = isObj(rec.tool) ? rec.tool : null;
    if (!t) return { events: [], samples: [], error: `${type} without a tool object` };
    const c = context(rec);
    const toolCallId = str(t.tool_call_id);
    if (!c.session) return { events: [], samples: [], error: "agent_context.session_id is missing" };
    if (!toolCallId) return { events: [], samples: [], error: "tool.tool_call_id is missing" };
    const key = `${c.session}\u0000${toolCallId}`;
    harnessTools.add(c.session);
    if (type === "tool_start") {
      if (toolStarts.size < MAX_PENDING)
        toolStarts.set(key, { at: Math.round(num(t.started_at_unix_ms) ?? at), trajectory: c.trajectory });
      return { events: [], samples: [] };
    }
    const start = toolStarts.get(key);
    toolStarts.delete(key);
    const duration = num(t.duration_ms);
    const endedAt = Math.round(num(t.ended_at_unix_ms) ?? at);
    const startedAt = Math.min(
      endedAt,
      Math.round(num(t.started_at_unix_ms) ?? start?.at ?? (duration !== undefined ? endedAt - duration : endedAt)),
    );
    const caller = toolCalls.get(key);
    const status =
      type === "tool_error"
        ? TOOL_STATUS[String(t.status)] === "cancelled"
          ? "cancelled"
          : "error"
        : (TOOL_STATUS[String(t.status)] ?? "succeeded");
    const event = {
      id: eventId("tool", c.session, toolCallId),
      kind: "tool",
      ts: endedAt,
      source: SOURCE,
      session_id: c.session.slice(0, MAX_ID),
      ...((c.trajectory ?? caller?.trajectory) && {
        trajectory_id: (c.trajectory ?? caller?.trajectory)!.slice(0, MAX_ID),
      }),
      ...(caller && { request_id: caller.requestId.slice(0, MAX_ID) }),
      tool_call_id: toolCallId.slice(0, MAX_ID),
      name: (str(t.tool_class) ?? caller?.name ?? "tool").slice(0, 256),
      ...(caller && { dispatched_at: Math.min(caller.at, startedAt) }),
      started_at: startedAt,
      ...(status !== "running" && { ended_at: endedAt }),
      status,
      ...(int(t.output_bytes) !== undefined && { output_bytes: int(t.output_bytes) }),
      ...(int(t.output_tokens) !== undefined && { output_tokens: int(t.output_tokens) }),
    } as TelemetryEventInput;
    return { events: [event], samples: [] };
  }

  function mapFpm(rec: Obj, line: number): Mapped {
    const f = isObj(rec.fpm) ? rec.fpm : null;
    if (!f) return { events: [], samples: [], error: "fpm record without an fpm object" };
    const worker = str(f.worker_id);
    const at = num(rec.observed_at_unix_ms);
    if (!worker) return { events: [], samples: [], error: "fpm.worker_id is missing" };
    if (at === undefined) return { events: [], samples: [], error: "observed_at_unix_ms is missing" };
    const workerId = workerName(worker, int(f.dp_rank));
    const s = isObj(f.scheduled_requests) ? f.scheduled_requests : {};
    const q = isObj(f.queued_requests) ? f.queued_requests : {};
    const counter = int(f.counter_id);
    const last = lastSample.get(workerId);
    if (last?.counter !== undefined && counter !== undefined && counter > last.counter + 1) gaps++;
    if (last && at - last.ts < FPM_SAMPLE_MS && at >= last.ts) {
      last.counter = counter;
      return { events: [], samples: [] };
    }
    lastSample.set(workerId, { ts: at, counter });
    const sample: LoadSample = {
      line,
      ts: Math.round(at),
      worker_id: workerId,
      requests_running: (int(s.num_prefill_requests) ?? 0) + (int(s.num_decode_requests) ?? 0),
      requests_waiting: (int(q.num_prefill_requests) ?? 0) + (int(q.num_decode_requests) ?? 0),
    };
    return { events: [], samples: [sample] };
  }

  return {
    /** Map one line (its text and 1-based number). */
    push(text: string, line: number): Mapped {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return { events: [], samples: [], error: "not valid JSON" };
      }
      if (!isObj(value)) return { events: [], samples: [], error: "a line must be a JSON object" };
      const rec = isObj(value.event) ? value.event : value;
      const schema = rec.schema;
      if (schema === FPM_SCHEMA) return mapFpm(rec, line);
      if (schema !== AGENT_SCHEMA && schema !== "dynamo.request.trace.v1") {
        return {
          events: [],
          samples: [],
          error: `unknown schema ${JSON.stringify(String(schema ?? "(none)").slice(0, 60))}`,
        };
      }
      const at = num(rec.event_time_unix_ms);
      if (at === undefined) return { events: [], samples: [], error: "event_time_unix_ms is missing" };
      const type = String(rec.event_type);
      if (type === "request_end") return mapRequest(rec, text, at);
      if (type === "tool_start" || type === "tool_end" || type === "tool_error") return mapTool(rec, type, at);
      return { events: [], samples: [] };
    },
    /** Tool spans known only at the end of the file: calls named by request_end in sessions without harness tool records. */
    finish(): TelemetryEventInput[] {
      const next = new Map<string, number[]>();
      for (const t of turns) (next.get(t.key) ?? next.set(t.key, []).get(t.key)!).push(t.arrivedAt);
      for (const list of next.values()) list.sort((a, b) => a - b);
      const out: TelemetryEventInput[] = [];
      for (const call of toolCalls.values()) {
        if (harnessTools.has(call.session)) continue;
        const list = next.get(`${call.session}\u0000${call.trajectory ?? ""}`) ?? [];
        const resumed = list.find((a) => a >= call.at);
        out.push({
          id: eventId("tool", call.session, call.id),
          kind: "tool",
          ts: resumed ?? call.at,
          source: SOURCE,
          session_id: call.session.slice(0, MAX_ID),
          ...(call.trajectory && { trajectory_id: call.trajectory.slice(0, MAX_ID) }),
          request_id: call.requestId.slice(0, MAX_ID),
          tool_call_id: call.id.slice(0, MAX_ID),
          name: call.name.slice(0, 256),
          started_at: call.at,
          ...(resumed !== undefined && { ended_at: resumed }),
          status: resumed !== undefined ? "succeeded" : "running",
        } as TelemetryEventInput);
      }
      return out;
    },
    /** Forward-pass counter gaps seen so far (sampling, drops or restarts). */
    gaps: () => gaps,
    /** tool_start records whose end never came in this file. */
    openTools: () => toolStarts.size,
  };
}
