// Request traces in the Mooncake format (one JSON object per line: `timestamp` in ms from the trace
// start, `input_length`, `output_length`, `hash_ids` — prefix-chained block ids, identical ids being
// reusable prefix blocks — and optional `session_id` and `delay`) and Dynamo's agentic variant
// (adds `request_id`, `wait_for` and `tool_wait_ms`). Pure: the caller reads (and gunzips) the
// file; every line is checked before anything plays, and a bad one is refused with file, line and field.

export type TraceEntry = {
  /** 1-based line in the file. */
  line: number;
  /** Ms from the trace start. */
  timestamp: number;
  inputLength: number;
  outputLength: number;
  hashIds: readonly number[];
  sessionId: string | null;
  /** Ms after the previous request of the same session finished (closed-loop sessions). */
  delayMs: number | null;
  requestId: string | null;
  /** Requests (by request_id, earlier in the trace) that must finish before this one is sent. */
  waitFor: readonly string[];
  /** Ms between the last awaited request finishing and this one being sent (a tool call). */
  toolWaitMs: number;
};

export type TraceParse = { ok: true; entries: TraceEntry[] } | { ok: false; error: string };

export const MAX_TRACE_LINES = 2_000_000;
const MAX_LENGTH = 10_000_000;
const MAX_MS = 366 * 24 * 3_600_000;

/** Parse and check a whole trace (text of the JSONL file); `blockSize` is tokens per hash id. */
export function parseWorkloadTrace(text: string, file: string, blockSize: number): TraceParse {
  const entries: TraceEntry[] = [];
  const ids = new Set<string>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    if (entries.length >= MAX_TRACE_LINES)
      return { ok: false, error: `${file}:${i + 1}: more than ${MAX_TRACE_LINES} requests` };
    const r = parseLine(raw, i + 1, blockSize, ids);
    if (typeof r === "string") return { ok: false, error: `${file}:${i + 1}: ${r}` };
    if (r.requestId !== null) ids.add(r.requestId);
    entries.push(r);
  }
  if (entries.length === 0) return { ok: false, error: `${file}: no requests` };
  return { ok: true, entries };
}

function parseLine(raw: string, line: number, blockSize: number, ids: Set<string>): TraceEntry | string {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return "not a JSON object";
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "not a JSON object";
  const o = v as Record<string, unknown>;
  const inputLength = int(o.input_length, "input_length", MAX_LENGTH);
  if (typeof inputLength === "string") return inputLength;
  const outputLength = int(o.output_length, "output_length", MAX_LENGTH);
  if (typeof outputLength === "string") return outputLength;
  if (o.hash_ids === undefined) return "hash_ids: is missing (prefix-chained block ids are needed to model the cache)";
  if (!Array.isArray(o.hash_ids)) return "hash_ids: must be an array of non-negative integers";
  const hashIds = o.hash_ids as unknown[];
  for (let k = 0; k < hashIds.length; k++) {
    const h = hashIds[k];
    if (typeof h !== "number" || !Number.isSafeInteger(h) || h < 0)
      return `hash_ids[${k}]: must be a non-negative integer`;
  }
  if (hashIds.length > Math.ceil(inputLength / blockSize))
    return `hash_ids: ${hashIds.length} ids cover more than input_length ${inputLength} at ${blockSize} tokens per id`;
  const hasSession = o.session_id !== undefined && o.session_id !== null;
  if (hasSession && typeof o.session_id !== "string" && typeof o.session_id !== "number")
    return "session_id: must be a string or a number";
  const sessionId = hasSession ? String(o.session_id).slice(0, 100) : null;
  const delay = o.delay === undefined || o.delay === null ? null : num(o.delay, "delay");
  if (typeof delay === "string") return delay;
  const timestamp = o.timestamp === undefined && delay !== null ? 0 : num(o.timestamp, "timestamp");
  if (typeof timestamp === "string") return timestamp;
  const hasId = o.request_id !== undefined && o.request_id !== null;
  if (hasId && typeof o.request_id !== "string" && typeof o.request_id !== "number")
    return "request_id: must be a string or a number";
  const requestId = hasId ? String(o.request_id).slice(0, 100) : null;
  if (requestId !== null && ids.has(requestId)) return `request_id: ${JSON.stringify(requestId)} appears twice`;
  const waitRaw =
    o.wait_for === undefined || o.wait_for === null ? [] : Array.isArray(o.wait_for) ? o.wait_for : [o.wait_for];
  const waitFor: string[] = [];
  for (const w of waitRaw) {
    if (typeof w !== "string" && typeof w !== "number") return "wait_for: must be request ids (strings or numbers)";
    if (!ids.has(String(w))) return `wait_for: ${JSON.stringify(String(w))} is not an earlier request_id`;
    waitFor.push(String(w));
  }
  const toolWait = o.tool_wait_ms === undefined || o.tool_wait_ms === null ? 0 : num(o.tool_wait_ms, "tool_wait_ms");
  if (typeof toolWait === "string") return toolWait;
  return {
    line,
    timestamp,
    inputLength,
    outputLength,
    hashIds: hashIds as number[],
    sessionId,
    delayMs: delay,
    requestId,
    waitFor,
    toolWaitMs: toolWait,
  };
}

function int(v: unknown, field: string, max: number): number | string {
  if (v === undefined || v === null) return `${field}: is missing`;
  if (typeof v !== "number" || !Number.isInteger(v)) return `${field}: must be an integer`;
  if (v < 0) return `${field}: must not be negative`;
  if (v > max) return `${field}: exceeds ${max}`;
  return v;
}

function num(v: unknown, field: string): number | string {
  if (v === undefined || v === null) return `${field}: is missing`;
  if (typeof v !== "number" || !Number.isFinite(v)) return `${field}: must be a number of ms`;
  if (v < 0) return `${field}: must not be negative`;
  if (v > MAX_MS) return `${field}: exceeds a year`;
  return v;
}

/** Last send time the trace states outright (ms from its start): a lower bound on how long it plays. */
export function traceSpanMs(entries: readonly TraceEntry[]): number {
  let span = 0;
  for (const e of entries) span = Math.max(span, e.timestamp + (e.delayMs ?? 0) + e.toolWaitMs);
  return span;
}
