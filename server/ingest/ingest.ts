import type { Db } from "../../db/client";
import { storeEvents } from "../../db/queries/ingest";
import { decodeBody, summarize, validateItems, type BatchReply } from "./batch";

/** Decode, validate per item and store one request body; nothing is stored if decoding refuses it. */
export function ingestBody(db: Db, text: string, contentType: string): BatchReply {
  const { events, slots, results } = validateItems(decodeBody(text, contentType));
  const stored = events.length ? storeEvents(db, events) : [];
  for (let i = 0; i < stored.length; i++) results[slots[i]!]!.status = stored[i]!;
  return summarize(results);
}
