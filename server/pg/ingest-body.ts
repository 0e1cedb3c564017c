import type { PgDb } from "../../db/pg/client";
import { storeEventsPg } from "../../db/pg/ingest";
import { pgTransaction } from "../../db/pg/client";
import { recordSenderPg } from "../../db/pg/sources";
import { decodeBody, validateItems, type BatchReply } from "../ingest/batch";
import { resolvePrefix } from "../ingest/prefix";
import type { Sender } from "../ingest/sender";
import { senderIdentity } from "../ingest/sender-identity";
import { answerBatch, type IngestTally } from "../ingest/tally";

/**
 * Decode, validate per item and store one request body on PostgreSQL, answering as SQLite's ingestBody does (the
 * same items, statuses, codes and errors). Nothing is stored if decoding refuses the body; a database failure throws
 * (the whole batch is rolled back: no reply claims anything was stored). `sender` is recorded in the batch's own
 * transaction (the Sources page's row and its dropped-events report), also when the body held nothing to store.
 */
export async function ingestBodyPg(
  pg: PgDb,
  text: string,
  contentType: string,
  sender?: Sender,
  now: () => number = Date.now,
): Promise<{ reply: BatchReply; tally: IngestTally }> {
  const decoded = decodeBody(text, contentType);
  const { events, slots, results } = validateItems(decoded);
  const record =
    sender &&
    ((tx: Parameters<typeof recordSenderPg>[0], accepted: number) =>
      recordSenderPg(tx, { ...senderIdentity(sender.source), ...sender }, accepted, now()));
  let stored: Awaited<ReturnType<typeof storeEventsPg>> = [];
  if (events.length)
    stored = await storeEventsPg(pg, events, {
      resolvePrefix,
      alsoInTransaction: record && ((tx, out) => record(tx, out.filter((s) => s === "accepted").length)),
    });
  else if (record) await pgTransaction(pg.$client, (tx) => record(tx, 0));
  return answerBatch(decoded, slots, results, stored);
}
