import type { PgDb } from "../../db/pg/client";
import { storeEventsPg } from "../../db/pg/ingest";
import { decodeBody, validateItems, type BatchReply } from "../ingest/batch";
import { resolvePrefix } from "../ingest/prefix";
import { answerBatch, type IngestTally } from "../ingest/tally";

/**
 * Decode, validate per item and store one request body on PostgreSQL, answering as SQLite's ingestBody does (the
 * same items, statuses, codes and errors). Nothing is stored if decoding refuses the body; a database failure throws
 * (the whole batch is rolled back: no reply claims anything was stored).
 */
export async function ingestBodyPg(
  pg: PgDb,
  text: string,
  contentType: string,
): Promise<{ reply: BatchReply; tally: IngestTally }> {
  const decoded = decodeBody(text, contentType);
  const { events, slots, results } = validateItems(decoded);
  const stored = events.length ? await storeEventsPg(pg, events, { resolvePrefix }) : [];
  return answerBatch(decoded, slots, results, stored);
}
