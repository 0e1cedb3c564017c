import type { Db } from "../../db/client";
import { storeEvents } from "../../db/queries/ingest";
import { decodeBody, summarize, validateItems, type BatchReply } from "./batch";

/** Decode, validate per item and store one request body; nothing is stored if decoding refuses it. */
export function ingestBody(db: Db, text: string, contentType: string): BatchReply {
  const { events, slots, results } = validateItems(decodeBody(text, contentType));
  const stored = events.length ? storeEvents(db, events) : [];
  for (let i = 0; i < stored.length; i++) {
    const r = results[slots[i]!]!;
    const st = stored[i]!;
    if (typeof st === "string") r.status = st;
    else Object.assign(r, { status: "rejected", code: st.code, error: r.line === undefined ? st.error : `line ${r.line}: ${st.error}` });
  }
  return summarize(results);
}
