import type { TelemetryEvent } from "../events";
import { decodeBody, validateItems, type Decoded, type ItemResult } from "../batch";
import { parseLifted, parseLiftedItem } from "../lift-hashes";
import { kindLabel } from "../tally";

// A body decoded and validated for PostgreSQL's store, in a form that crosses threads cheaply: the valid events, a
// result slot per item, and each item's kind label (all answerBatch keeps of the decoded items). Pure.

export type DecodedBody = { labels: string[]; events: TelemetryEvent[]; slots: number[]; results: ItemResult[] };

/**
 * Decode and validate one body (throws decodeBody's AppError when the body as a whole is refused). KV events' hash
 * lists are read from the text into their binary form (lift-hashes.ts, as SQLite's ingest does): a body then crosses
 * from a decode thread as a buffer per list, not a string per hash for the main thread to build and collect (the
 * rows take the bytes through hashListBytes, which knows a lifted list by its shape: a message keeps no class).
 */
export function decodeForStore(text: string, contentType: string): DecodedBody {
  const decoded = decodeBody(text, contentType, parseLifted);
  const { events, slots, results } = validateItems(decoded, parseLiftedItem);
  return { labels: decoded.map((d) => kindLabel(d.value)), events, slots, results };
}

/** The decoded items as answerBatch reads them (only each item's kind). */
export function labelled(labels: readonly string[]): Decoded[] {
  return labels.map((kind, index) => ({ index, value: { kind } }));
}

/** Decodes bodies for PostgreSQL's ingest: inline, or on the decode threads (server/ingest/pg/decode-pool.ts). */
export type BodyDecoder = (text: string, contentType: string) => Promise<DecodedBody>;

const key = Symbol.for("switchyard.pgBodyDecoder");
type Holder = { [key]?: BodyDecoder };

/** The process's installed decoder, if any (route handlers decode inline without one). */
export function pgBodyDecoder(): BodyDecoder | undefined {
  return (globalThis as Holder)[key];
}

/** Install (or with undefined, remove) the process's decoder. */
export function setPgBodyDecoder(decode: BodyDecoder | undefined): void {
  if (decode) (globalThis as Holder)[key] = decode;
  else delete (globalThis as Holder)[key];
}
