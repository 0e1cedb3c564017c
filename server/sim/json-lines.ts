import type { TelemetryEventInput } from "../ingest/events";

// NDJSON serialisation of emitted events. Events whose big hash arrays already exist as JSON text
// (request and kv.stored) carry a FAST_JSON function producing exactly JSON.stringify(event)
// without walking those arrays again; everything else goes through JSON.stringify.

export const FAST_JSON: unique symbol = Symbol("fastJson");

export type FastJson = { [FAST_JSON]?: (event: { id: string }) => string };

/** One event as an NDJSON line (no newline). */
export function toJsonLine(event: TelemetryEventInput): string {
  const fast = (event as FastJson)[FAST_JSON];
  return fast ? fast(event) : JSON.stringify(event);
}

/**
 * `head` plus trailing array fields given as JSON items, as `JSON.stringify({...head, ...arrays})`
 * would write them (the item text must already be valid JSON array items).
 */
export function jsonWithArrays(head: object, arrays: readonly (readonly [key: string, items: string])[]): string {
  let out = JSON.stringify(head).slice(0, -1);
  for (const [key, items] of arrays) out += `,"${key}":[${items}]`;
  return `${out}}`;
}
