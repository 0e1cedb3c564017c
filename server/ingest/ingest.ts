import { isBusy, type Db } from "../../db/sqlite/client";
import { prepareEvents, insertEvents } from "../../db/sqlite/ingest";
import type { StoreStatus } from "../../db/rows/ingest";
import type { Store } from "../../db/store/store";
import { decodeBody, validateItems, type BatchReply } from "./batch";
import { parseLifted, parseLiftedItem } from "./lift-hashes";
import { resolvePrefix } from "./prefix";
import { recordSender, type Sender } from "./sender";
import { answerBatch, type IngestTally } from "./tally";

/**
 * How a body is stored: `sender` is recorded with the batch; `turn` runs its write (exactly once per body, also when
 * it has nothing to write or is refused) when it is this body's turn among the ingest threads (write-gate.ts).
 */
export type IngestOptions = {
  sender?: Sender;
  turn?: <T>(write: () => T) => T;
  /** insertEvents' lockWaitMs: how long a batch retries taking a write lock another connection holds. */
  lockWaitMs?: number;
};

/** Decode, validate per item and store one request body; nothing is stored if decoding refuses it. */
export function ingestBody(db: Db, text: string, contentType: string, options: IngestOptions = {}): BatchReply {
  return ingestBodyTallied(db, text, contentType, options).reply;
}

/** ingestBody, plus its results tallied by event kind (for the metrics the main thread keeps). */
export function ingestBodyTallied(
  db: Db,
  text: string,
  contentType: string,
  options: IngestOptions = {},
): { reply: BatchReply; tally: IngestTally } {
  const turn = options.turn ?? (<T>(write: () => T): T => write());
  let turned = false;
  const inTurn = <T>(write: () => T): T => {
    turned = true;
    return turn(write);
  };
  try {
    return ingestInTurn(db, text, contentType, options, inTurn);
  } finally {
    if (!turned) turn(() => undefined);
  }
}

function ingestInTurn(
  db: Db,
  text: string,
  contentType: string,
  { sender, lockWaitMs }: IngestOptions,
  inTurn: <T>(write: () => T) => T,
): { reply: BatchReply; tally: IngestTally } {
  const body = prepareBody(text, contentType);
  const stored = inTurn(() => writeBody(db, body, sender, lockWaitMs));
  return answerBatch(body.decoded, body.slots, body.results, stored);
}

/**
 * ingestBodyTallied on the event loop's own connection (no ingest thread: `SWITCHYARD_INGEST_WORKERS=0`, or before the
 * pool is installed): the write is a store.tx, which waits for another connection's write lock on the event loop. A
 * plain insertEvents there waited inside SQLite for the shared connection's busy timeout (250 ms), holding every
 * request up, then failed the body with "database is locked" whenever the attribution thread held the lock longer.
 */
export async function ingestBodyInline(
  store: Store,
  text: string,
  contentType: string,
  sender?: Sender,
): Promise<{ reply: BatchReply; tally: IngestTally }> {
  const body = prepareBody(text, contentType);
  const db = store.sqlite!;
  const stored = body.batch || sender ? await store.tx(async () => writeBody(db, body, sender)) : [];
  return answerBatch(body.decoded, body.slots, body.results, stored);
}

type PreparedBody = ReturnType<typeof prepareBody>;

/** A body decoded, validated per item and made into rows: all of it before the write, which needs nothing of it. */
function prepareBody(text: string, contentType: string) {
  // KV events' hash lists are read from the text into their binary form, never as strings (lift-hashes.ts).
  const decoded = decodeBody(text, contentType, parseLifted);
  const { events, slots, results } = validateItems(decoded, parseLiftedItem);
  // Encoding and row building need nothing from the store: done here, before this body's write turn, they overlap
  // the other ingest threads' turns instead of holding them up.
  return { decoded, slots, results, batch: events.length ? prepareEvents(events) : null };
}

/** Store a prepared body's rows and its sender (or the sender alone when it has no rows). */
function writeBody(db: Db, body: PreparedBody, sender: Sender | undefined, lockWaitMs?: number): StoreStatus[] {
  const now = Date.now();
  if (body.batch)
    return insertEvents(db, body.batch, {
      resolvePrefix,
      lockWaitMs,
      alsoInTransaction: sender && ((out) => recordSender(db, sender, out.filter((s) => s === "accepted").length, now)),
    });
  if (sender) noteAlone(db, sender, now);
  return [];
}

/** A batch with nothing to store still shows its sender; when the write lock is busy, the sender's next batch does. */
function noteAlone(db: Db, sender: Sender, now: number): void {
  try {
    db.$client.transaction(() => recordSender(db, sender, 0, now)).immediate();
  } catch (err) {
    if (!isBusy(err)) throw err;
  }
}
