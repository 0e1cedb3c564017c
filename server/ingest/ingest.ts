import type { Db } from "../../db/client";
import { storeEvents } from "../../db/queries/ingest";
import { decodeBody, summarize, validateItems, type BatchReply } from "./batch";
import { kindLabel, tallyByKind, type IngestTally } from "./tally";

/** Decode, validate per item and store one request body; nothing is stored if decoding refuses it. */
export function ingestBody(db: Db, text: string, contentType: string): BatchReply {
  return ingestBodyTallied(db, text, contentType).reply;
}

/** ingestBody, plus its results tallied by event kind (for the metrics the main thread keeps). */
export function ingestBodyTallied(
  db: Db,
  text: string,
  contentType: string,
): { reply: BatchReply; tally: IngestTally } {
  const decoded = decodeBody(text, contentType);
  const { events, slots, results } = validateItems(decoded);
  const stored = events.length ? storeEvents(db, events) : [];
  for (let i = 0; i < stored.length; i++) {
    const r = results[slots[i]!]!;
    const st = stored[i]!;
    if (typeof st === "string") r.status = st;
    else
      Object.assign(r, {
        status: "rejected",
        code: st.code,
        error: r.line === undefined ? st.error : `line ${r.line}: ${st.error}`,
      });
  }
  return {
    reply: summarize(results),
    tally: tallyByKind(
      decoded.map((d) => kindLabel(d.value)),
      results,
    ),
  };
}
