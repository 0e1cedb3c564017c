import type { TelemetryEventInput } from "../ingest/events";

// NDJSON serialisation of emitted events. Events whose big hash arrays already exist as JSON text
// (request, kv.stored, kv.removed) carry a FAST_JSON writer producing exactly JSON.stringify(event)
// as pieces handed to a LineOut, without walking those arrays again: a file appends the pieces
// straight into its buffer (no line string per event), toJsonLine joins them. Everything else goes
// through JSON.stringify.

export const FAST_JSON: unique symbol = Symbol("fastJson");

/** Where a line's pieces go, in order. */
export interface LineOut {
  /** Any text (written as UTF-8). */
  text(s: string): void;
  /** Text known to be ASCII (hash items, keys, punctuation): no encoding work. */
  ascii(s: string): void;
  /** ASCII text as bytes src[from, to) (digits written straight into a scratch buffer): copied, no string made. */
  bytes(src: Uint8Array, from: number, to: number): void;
}

/** Writes the pieces of `JSON.stringify(event)` (no newline) to `out`. */
export type FastWriter = (event: { id: string }, out: LineOut) => void;

export type FastJson = { [FAST_JSON]?: FastWriter };

/** Collects the pieces of one line into a string (the dashboard's delivery, tests). */
export class StringOut implements LineOut {
  s = "";
  text(s: string): void {
    this.s += s;
  }
  ascii(s: string): void {
    this.s += s;
  }
  bytes(src: Uint8Array, from: number, to: number): void {
    this.s += Buffer.from(src.buffer, src.byteOffset + from, to - from).toString("latin1");
  }
}

/** One event as an NDJSON line (no newline). */
export function toJsonLine(event: TelemetryEventInput): string {
  const fast = (event as FastJson)[FAST_JSON];
  if (!fast) return JSON.stringify(event);
  const out = new StringOut();
  fast(event, out);
  return out.s;
}

/** One event's line written to `out` (no newline). */
export function writeJsonLine(event: TelemetryEventInput, out: LineOut): void {
  const fast = (event as FastJson)[FAST_JSON];
  if (fast) fast(event, out);
  else out.text(JSON.stringify(event));
}

/**
 * Writes the opening of `JSON.stringify({ id, ...head })` without its closing brace: `{"id":…,` and head's members
 * (head's text is handed on as a slice, not copied into a new string). Head must have at least one member and no `id`
 * key (true of every event head).
 */
export function writeOpen(out: LineOut, id: string, head: object): void {
  const json = JSON.stringify(head);
  out.ascii('{"id":');
  out.text(JSON.stringify(id));
  out.ascii(",");
  out.text(json.slice(1, -1));
}
