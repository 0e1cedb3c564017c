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
  /**
   * Optional: the JSON items `"d0","d1",…` (no brackets) of hashes [from, to), hash i's u64 halves (hi, lo) at
   * words[2 i], words[2 i + 1]. A sink that has it takes hash lists as their halves (the --out file hands the digits to
   * its helper thread); writers use the text methods for a sink without it.
   */
  u64s?(words: Uint32Array, from: number, to: number): void;
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

/**
 * An enumerable getter of `key` shared by every event of a kind (an accessor defined with the same function keeps the
 * events' hidden class shared; a closure per event made each one a dictionary object): it builds the list on first read
 * and keeps it as a plain value.
 */
export function lazyList(key: string, build: (event: object) => string[]): PropertyDescriptor {
  return {
    enumerable: true,
    configurable: true,
    get(this: object) {
      const value = build(this);
      Object.defineProperty(this, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
  };
}

/** A string as JSON: quoted as it is when nothing in it needs escaping or is outside ASCII (ids), else JSON.stringify. */
export function quote(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 34 || c === 92 || c > 0x7e) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/** A number as JSON.stringify writes it (null when not finite). */
export function num(n: number): string {
  return Number.isFinite(n) ? String(n) : "null";
}
