import type { PgDb } from "../../../db/pg/client";
import { insertEventsPg } from "../../../db/pg/ingest";
import { pgTransaction } from "../../../db/pg/client";
import { recordSenderPg } from "../../../db/pg/sources";
import type { BatchReply } from "../batch";
import { ingestBusySignal } from "../busy-signal";
import { resolvePrefix } from "../prefix";
import type { Sender } from "../sender";
import { senderIdentity } from "../sender-identity";
import { answerBatch, type IngestTally } from "../tally";
import { decodeForStore, labelled, type DecodedBody } from "./decode";

/**
 * Decode, validate per item and store one request body on PostgreSQL, answering as SQLite's ingestBody does (the
 * same items, statuses, codes and errors). Nothing is stored if decoding refuses the body; a database failure throws
 * (the whole batch is rolled back: no reply claims anything was stored). `sender` is recorded in the batch's own
 * transaction (the Sources page's row and its dropped-events report), also when the body held nothing to store.
 * Bodies are stored in the order of the calls (db/pg/ingest.ts takes each batch's turn when called). The dashboard
 * runs it on its PostgreSQL ingest thread (server/ingest/pg/ingest-pool.ts).
 */
export async function ingestBodyPg(
  pg: PgDb,
  text: string,
  contentType: string,
  sender?: Sender,
  now: () => number = Date.now,
): Promise<{ reply: BatchReply; tally: IngestTally }> {
  // Published for the background jobs that yield to ingest (busy-signal.ts), as SQLite's ingest pool does: without
  // it the attribution thread never napped on PostgreSQL, and took 4.9 s of bench:storage's 21 s of ingest on 2 cores.
  // (With the ingest thread, the pool publishes it in the dashboard's process, where the attribution thread reads it.)
  const busy = ingestBusySignal();
  busy.begin();
  try {
    return await storeDecoded(pg, decodeForStore(text, contentType), sender, now);
  } finally {
    busy.end();
  }
}

/** Store a decoded body and answer it. */
async function storeDecoded(
  pg: PgDb,
  { labels, events, slots, results }: DecodedBody,
  sender: Sender | undefined,
  now: () => number,
): Promise<{ reply: BatchReply; tally: IngestTally }> {
  const record =
    sender &&
    ((tx: Parameters<typeof recordSenderPg>[0], accepted: number) =>
      recordSenderPg(tx, { ...senderIdentity(sender.source), ...sender }, accepted, now()));
  let stored: Awaited<ReturnType<typeof insertEventsPg>> = [];
  if (events.length) {
    // insertEventsPg takes its turn synchronously, when called: the next body may go as soon as this call is made.
    stored = await insertEventsPg(pg, events, {
      resolvePrefix,
      alsoInTransaction: record && ((tx, out) => record(tx, out.filter((s) => s === "accepted").length)),
    });
  } else if (record) await pgTransaction(pg.$client, (tx) => record(tx, 0));
  return answerBatch(labelled(labels), slots, results, stored);
}
