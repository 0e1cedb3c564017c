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
import { decodeForStore, labelled, pgBodyDecoder, type DecodedBody } from "./decode";

/** The last body of each pool to have been handed to the store, in arrival order (resolves once it has been). */
const lastHanded = new WeakMap<object, Promise<void>>();

/**
 * Keep bodies in arrival order across decoding on threads: a body is handed to the store (which orders its batches by
 * call) only after the bodies that arrived before it were, so a turn naming a request of the body before it finds it.
 */
function arrivalTurn(key: object): { previous: Promise<void>; handed: () => void } {
  const previous = lastHanded.get(key) ?? Promise.resolve();
  let handed!: () => void;
  lastHanded.set(key, new Promise<void>((resolve) => (handed = resolve)));
  return { previous, handed };
}

/**
 * Decode, validate per item and store one request body on PostgreSQL, answering as SQLite's ingestBody does (the
 * same items, statuses, codes and errors). Nothing is stored if decoding refuses the body; a database failure throws
 * (the whole batch is rolled back: no reply claims anything was stored). `sender` is recorded in the batch's own
 * transaction (the Sources page's row and its dropped-events report), also when the body held nothing to store.
 * Decoding runs on the installed decode threads (server/ingest/pg/decode-pool.ts) when there are any, else inline.
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
  const busy = ingestBusySignal();
  busy.begin();
  try {
    const decoder = pgBodyDecoder();
    if (!decoder) return await storeDecoded(pg, decodeForStore(text, contentType), sender, now);
    const turn = arrivalTurn(pg.$client);
    try {
      const body = await decoder(text, contentType);
      await turn.previous;
      return await storeDecoded(pg, body, sender, now, turn.handed);
    } finally {
      turn.handed();
    }
  } finally {
    busy.end();
  }
}

/** Store a decoded body and answer it; `handed` runs once its batch has taken its place in the store's order. */
async function storeDecoded(
  pg: PgDb,
  { labels, events, slots, results }: DecodedBody,
  sender: Sender | undefined,
  now: () => number,
  handed?: () => void,
): Promise<{ reply: BatchReply; tally: IngestTally }> {
  const record =
    sender &&
    ((tx: Parameters<typeof recordSenderPg>[0], accepted: number) =>
      recordSenderPg(tx, { ...senderIdentity(sender.source), ...sender }, accepted, now()));
  let stored: Awaited<ReturnType<typeof insertEventsPg>> = [];
  if (events.length) {
    // insertEventsPg takes its turn synchronously, when called: the next body may go as soon as this call is made.
    const storing = insertEventsPg(pg, events, {
      resolvePrefix,
      alsoInTransaction: record && ((tx, out) => record(tx, out.filter((s) => s === "accepted").length)),
    });
    handed?.();
    stored = await storing;
  } else {
    handed?.();
    if (record) await pgTransaction(pg.$client, (tx) => record(tx, 0));
  }
  return answerBatch(labelled(labels), slots, results, stored);
}
