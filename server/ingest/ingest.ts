import { isBusy, type Db } from "../../db/sqlite/client";
import { prepareEvents, insertEvents } from "../../db/sqlite/ingest";
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
  // KV events' hash lists are read from the text into their binary form, never as strings (lift-hashes.ts).
  const decoded = decodeBody(text, contentType, parseLifted);
  const { events, slots, results } = validateItems(decoded, parseLiftedItem);
  // Encoding and row building need nothing from the store: done here, before this body's write turn, they overlap
  // the other ingest threads' turns instead of holding them up.
  const batch = events.length ? prepareEvents(events) : null;
  const now = Date.now();
  const stored = inTurn(() => {
    if (batch)
      return insertEvents(db, batch, {
        resolvePrefix,
        lockWaitMs,
        alsoInTransaction:
          sender && ((out) => recordSender(db, sender, out.filter((s) => s === "accepted").length, now)),
      });
    if (sender) noteAlone(db, sender, now);
    return [];
  });
  return answerBatch(decoded, slots, results, stored);
}

/** A batch with nothing to store still shows its sender; when the write lock is busy, the sender's next batch does. */
function noteAlone(db: Db, sender: Sender, now: number): void {
  try {
    db.$client.transaction(() => recordSender(db, sender, 0, now)).immediate();
  } catch (err) {
    if (!isBusy(err)) throw err;
  }
}
