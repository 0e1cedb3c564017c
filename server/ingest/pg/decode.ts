import type { TelemetryEvent } from "../events";
import { decodeBody, validateItems, type Decoded, type ItemResult } from "../batch";
import { parseLifted, parseLiftedItem } from "../lift-hashes";
import { kindLabel } from "../tally";

// A body decoded and validated for PostgreSQL's store: the valid events, a result slot per item, and each item's kind
// label (all answerBatch keeps of the decoded items). Pure.

export type DecodedBody = { labels: string[]; events: TelemetryEvent[]; slots: number[]; results: ItemResult[] };

/**
 * Decode and validate one body (throws decodeBody's AppError when the body as a whole is refused). KV events' hash
 * lists are read from the text into their binary form (lift-hashes.ts, as SQLite's ingest does): a buffer per list,
 * not a string per hash to build and collect (the rows take the bytes through hashListBytes).
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
