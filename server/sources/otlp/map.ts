import type { TelemetryEventInput } from "../../ingest/events";
import { eventId } from "../dynamo-trace/map";
import type { AttrValue, FlatRecord } from "./decode";

// Harness OTLP log events (Claude Code, Codex) → switchyard.telemetry.v1 request and tool events. Pure.
// Sessions keep the harness's own id (session.id / conversation.id) so they join infrastructure telemetry that carries
// the same session id; tool events share their id with the Dynamo trace's ("tool:<session>:<call id>") so one tool
// call reported by both sides is stored once.

export type MappedRecord = { index: number; event?: TelemetryEventInput; error?: string; ignored?: true };

const SOURCE = "otlp";
const MAX = 128;

/** A number from an int, double or numeric string attribute; undefined when absent or not a number. */
export function numberOf(v: AttrValue | undefined): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** A non-negative integer token count; huge or negative values are an error (undefined when absent). */
function tokens(attrs: Record<string, AttrValue>, key: string): number | undefined {
  const n = numberOf(attrs[key]);
  if (n === undefined) return undefined;
  if (n < 0 || n > 100_000_000) throw new Error(`${key}: ${n} is out of range (0 to 100,000,000 tokens)`);
  return Math.round(n);
}

const text = (v: AttrValue | undefined): string | undefined =>
  typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;
const truthy = (v: AttrValue | undefined): boolean | undefined =>
  typeof v === "boolean" ? v : v === "true" ? true : v === "false" ? false : undefined;

/**
 * Normalize prompt tokens to the whole prompt and the part served from cache. Anthropic's input_tokens exclude cache
 * reads and cache writes (total = input + cache_read + cache_creation); OpenAI's include the cached part.
 */
export function normalizeTokens(
  style: "anthropic" | "openai",
  t: { input: number; cacheRead?: number; cacheCreation?: number; cached?: number },
): { input_tokens: number; cached_tokens: number } {
  if (style === "anthropic") {
    const read = t.cacheRead ?? 0;
    return { input_tokens: t.input + read + (t.cacheCreation ?? 0), cached_tokens: read };
  }
  const cached = Math.min(t.cached ?? 0, t.input);
  return { input_tokens: t.input, cached_tokens: cached };
}

/** The record's time in Unix ms: timeUnixNano, else observedTimeUnixNano, else the event.timestamp attribute. */
export function recordTime(r: FlatRecord): number | undefined {
  for (const n of [r.timeUnixNano, r.observedUnixNano]) if (n && n !== "0") return Number(BigInt(n) / 1_000_000n);
  const iso = text(r.attrs["event.timestamp"]);
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

/** The event name: LogRecord.eventName, a prefixed event.name attribute, or the body naming it. */
export function eventName(r: FlatRecord): string | null {
  if (r.eventName) return r.eventName;
  const attr = text(r.attrs["event.name"]);
  if (attr?.includes(".")) return attr;
  const body = typeof r.body === "string" ? r.body : null;
  if (body && /^(claude_code|codex)\.[a-z_.]+$/.test(body)) return body;
  if (attr) {
    const service = text(r.attrs["service.name"]) ?? "";
    if (/claude/i.test(service)) return `claude_code.${attr}`;
    if (/codex/i.test(service)) return `codex.${attr}`;
  }
  return attr ?? null;
}

function claude(name: string, r: FlatRecord, ts: number): TelemetryEventInput | null {
  const a = r.attrs;
  const session = text(a["session.id"]);
  if (!session) throw new Error("session.id is missing");
  const prompt = text(a["prompt.id"]);
  const duration = Math.max(0, numberOf(a.duration_ms) ?? 0);
  const model = (text(a.model) ?? "unknown").slice(0, 256);
  if (name === "claude_code.api_request" || name === "claude_code.api_error") {
    const requestId = text(a.request_id) ?? `${prompt ?? session}:${ts}`;
    const error = name === "claude_code.api_error";
    const t = error
      ? { input_tokens: 0, cached_tokens: 0 }
      : normalizeTokens("anthropic", {
          input: tokens(a, "input_tokens") ?? 0,
          cacheRead: tokens(a, "cache_read_tokens"),
          cacheCreation: tokens(a, "cache_creation_tokens"),
        });
    return {
      id: eventId("otlp", "cc", session, requestId, error ? `err:${text(a.attempt) ?? ts}` : "ok"),
      kind: "request",
      ts,
      source: SOURCE,
      request_id: requestId.slice(0, MAX),
      session_id: session.slice(0, MAX),
      harness: "claude_code",
      api: "messages",
      model,
      arrived_at: Math.round(ts - duration),
      finished_at: ts,
      ...t,
      output_tokens: error ? 0 : (tokens(a, "output_tokens") ?? 0),
      status: error ? "error" : "ok",
      ...(error && text(a.status_code) && { finish_reason: `http_${text(a.status_code)}`.slice(0, 64) }),
    } as TelemetryEventInput;
  }
  if (name === "claude_code.tool_result") {
    const toolName = text(a.tool_name) ?? "tool";
    const callId = text(a.tool_use_id) ?? `${prompt ?? "p"}:${toolName}:${ts}`;
    const ok = truthy(a.success);
    return tool(
      session,
      callId,
      toolName,
      ts,
      duration,
      ok === false ? "error" : "succeeded",
      numberOf(a.tool_result_size_bytes),
    );
  }
  return null;
}

function codex(name: string, r: FlatRecord, ts: number): TelemetryEventInput | null {
  const a = r.attrs;
  const session = text(a["conversation.id"]);
  if (!session) throw new Error("conversation.id is missing");
  const model = (text(a.model) ?? text(a.slug) ?? "unknown").slice(0, 256);
  if (name === "codex.sse_event") {
    if (text(a["event.kind"]) !== "response.completed") return null;
    const requestId = text(a.response_id) ?? text(a["response.id"]) ?? `${session}:${ts}`;
    const t = normalizeTokens("openai", {
      input: tokens(a, "input_token_count") ?? 0,
      cached: tokens(a, "cached_token_count"),
    });
    const duration = Math.max(0, numberOf(a.duration_ms) ?? 0);
    const reasoning = tokens(a, "reasoning_token_count");
    return {
      id: eventId("otlp", "codex", session, requestId),
      kind: "request",
      ts,
      source: SOURCE,
      request_id: requestId.slice(0, MAX),
      session_id: session.slice(0, MAX),
      harness: "codex",
      api: "responses",
      model,
      arrived_at: Math.round(ts - duration),
      finished_at: ts,
      ...t,
      output_tokens: tokens(a, "output_token_count") ?? 0,
      ...(reasoning !== undefined && { reasoning_tokens: reasoning }),
      status: "ok",
    } as TelemetryEventInput;
  }
  if (name === "codex.api_request") {
    const status = numberOf(a["http.response.status_code"]);
    const failed = text(a["error.message"]) !== undefined || (status !== undefined && status >= 400);
    if (!failed) return null;
    const duration = Math.max(0, numberOf(a.duration_ms) ?? 0);
    const requestId = `${session}:${ts}:${text(a.attempt) ?? "1"}`;
    return {
      id: eventId("otlp", "codex", session, requestId, "err"),
      kind: "request",
      ts,
      source: SOURCE,
      request_id: requestId.slice(0, MAX),
      session_id: session.slice(0, MAX),
      harness: "codex",
      api: "responses",
      model,
      arrived_at: Math.round(ts - duration),
      finished_at: ts,
      input_tokens: 0,
      cached_tokens: 0,
      output_tokens: 0,
      status: "error",
      ...(status !== undefined && { finish_reason: `http_${status}` }),
    } as TelemetryEventInput;
  }
  if (name === "codex.tool_result") {
    const toolName = text(a.tool_name) ?? "tool";
    const callId = text(a.call_id) ?? `${toolName}:${ts}`;
    return tool(
      session,
      callId,
      toolName,
      ts,
      Math.max(0, numberOf(a.duration_ms) ?? 0),
      truthy(a.success) === false ? "error" : "succeeded",
      undefined,
    );
  }
  return null;
}

function tool(
  session: string,
  callId: string,
  name: string,
  ts: number,
  duration: number,
  status: "succeeded" | "error",
  bytes: number | undefined,
): TelemetryEventInput {
  return {
    id: eventId("tool", session, callId),
    kind: "tool",
    ts,
    source: SOURCE,
    session_id: session.slice(0, MAX),
    tool_call_id: callId.slice(0, MAX),
    name: name.slice(0, 256),
    started_at: Math.round(ts - duration),
    ended_at: ts,
    status,
    ...(bytes !== undefined && bytes >= 0 && { output_bytes: Math.round(bytes) }),
  } as TelemetryEventInput;
}

/**
 * The cluster a record's attributes name, or undefined (the default cluster): the first of `attributes` it has
 * (SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES, cluster-attributes.ts). The value becomes the event's `cluster` as it is; the
 * event format refuses a malformed one (that event alone, with the reason).
 */
export function clusterOf(r: FlatRecord, attributes: readonly string[]): string | undefined {
  for (const key of attributes) {
    const v = text(r.attrs[key]);
    if (v) return v.slice(0, 256);
  }
  return undefined;
}

/**
 * Map one log record: an event, an error naming the field at fault, or ignored (not a harness event we use). Its
 * cluster is named by the first of `clusterAttributes` the record has (clusterOf).
 */
export function mapRecord(r: FlatRecord, clusterAttributes: readonly string[]): MappedRecord {
  const name = eventName(r);
  if (!name || !(name.startsWith("claude_code.") || name.startsWith("codex.")))
    return { index: r.index, ignored: true };
  const ts = recordTime(r);
  if (ts === undefined)
    return { index: r.index, error: `${name}: no timestamp (timeUnixNano, observedTimeUnixNano or event.timestamp)` };
  try {
    const event = name.startsWith("claude_code.") ? claude(name, r, ts) : codex(name, r, ts);
    if (!event) return { index: r.index, ignored: true };
    const cluster = clusterOf(r, clusterAttributes);
    return { index: r.index, event: cluster === undefined ? event : { ...event, cluster } };
  } catch (err) {
    return { index: r.index, error: `${name}: ${(err as Error).message}` };
  }
}
