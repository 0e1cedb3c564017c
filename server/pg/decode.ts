import { LiftedHashes } from "../../db/chain-codec";
import type { TelemetryEvent } from "../ingest/events";
import { decodeBody, validateItems, type Decoded, type ItemResult } from "../ingest/batch";
import { parseLifted, parseLiftedItem } from "../ingest/lift-hashes";
import { kindLabel } from "../ingest/tally";

// A body decoded and validated for PostgreSQL's store, in a form that crosses threads cheaply: the valid events, a
// result slot per item, and each item's kind label (all answerBatch keeps of the decoded items). Pure.

export type DecodedBody = { labels: string[]; events: TelemetryEvent[]; slots: number[]; results: ItemResult[] };

/**
 * Decode and validate one body (throws decodeBody's AppError when the body as a whole is refused). KV events' hash
 * lists are read from the text into their binary form (lift-hashes.ts, as SQLite's ingest does): a body then crosses
 * from a decode thread as a buffer per list, not a string per hash for the main thread to build and collect.
 */
export function decodeForStore(text: string, contentType: string): DecodedBody {
  const decoded = decodeBody(text, contentType, parseLifted);
  const { events, slots, results } = validateItems(decoded, parseLiftedItem);
  return { labels: decoded.map((d) => kindLabel(d.value)), events, slots, results };
}

const LIFTED_FIELDS = ["block_hashes", "local_hashes"] as const;

/**
 * A body that came from a decode thread, its lifted lists made LiftedHashes again (a message keeps an object's
 * fields, not its class, and a Buffer arrives as a plain Uint8Array). In place; returns the body.
 */
export function reviveLifted(body: DecodedBody): DecodedBody {
  for (const e of body.events) {
    if (e.kind !== "kv.stored" && e.kind !== "kv.removed") continue;
    const fields = e as unknown as Record<string, unknown>;
    for (const f of LIFTED_FIELDS) {
      const v = fields[f] as { length?: unknown; bytes?: unknown } | undefined;
      if (v === undefined || Array.isArray(v) || v instanceof LiftedHashes || typeof v.length !== "number") continue;
      const b =
        v.bytes instanceof Uint8Array ? Buffer.from(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength) : null;
      fields[f] = new LiftedHashes(v.length, b);
    }
  }
  return body;
}

/** The decoded items as answerBatch reads them (only each item's kind). */
export function labelled(labels: readonly string[]): Decoded[] {
  return labels.map((kind, index) => ({ index, value: { kind } }));
}

/** Decodes bodies for PostgreSQL's ingest: inline, or on the decode threads (server/pg/decode-pool.ts). */
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
