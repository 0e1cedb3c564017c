// One ingest worker thread: its own connection to the database file; one message per request body.
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/sqlite/client";
import { forgetKvLocations, shareKvLocations } from "../../db/sqlite/kv-lists";
import { joinWriteIntent } from "../../db/sqlite/write-intent";
import { AppError } from "../errors";
import { ingestBodyTallied } from "./ingest";
import type { Sender } from "./sender";
import { WriteGate } from "./write-gate";
import { nameThread } from "../jobs/thread-priority";
import { errorMessage, log } from "../observability/logger";
import { reportThreadMemory } from "../observability/thread-memory";
import { SQLITE_CACHE_MB } from "../../lib/memory-bounds";
import { utf8Text } from "../../lib/utf8";

reportThreadMemory();

const {
  dbFile,
  gate: shared,
  kvLocations,
  writeIntent,
} = workerData as {
  dbFile: string;
  gate?: SharedArrayBuffer;
  kvLocations?: SharedArrayBuffer;
  writeIntent?: SharedArrayBuffer;
};
// Named so its CPU time can be told from the other threads' (bench:storage's CPU by thread).
nameThread("sy-ingest");
const db = openDb(dbFile, 5_000, SQLITE_CACHE_MB.ingest);
if (kvLocations) shareKvLocations(db, kvLocations);
// Each batch holds back while a writer on the dashboard's event loop waits for the lock (insertEvents, write-intent.ts).
joinWriteIntent(writeIntent);
const gate = shared ? new WriteGate(shared) : undefined;
// The pool's checkpoint thread copies the WAL into the database file (checkpoint-worker.ts): a commit here never
// runs the checkpoint itself, which would hold up the next batch's write turn for the time it takes.
db.$client.pragma("wal_autocheckpoint = 0");
// Another connection's write (attribution, the dashboard) is waited for by insertEvents' own retries, which take the
// lock within a fraction of a millisecond of its release, not by SQLite's busy handler (sleeps of up to 100 ms).
db.$client.pragma("busy_timeout = 0");
const LOCK_WAIT_MS = 5_000;

/** `text`: the body, or its bytes (UTF-8) moved here by the pool and decoded on this thread. */
type Message = { id: number; ticket: number; text: string | Uint8Array; contentType: string; sender?: Sender };

parentPort!.on("message", (m: Message) => {
  try {
    // A thread that died in its turn may have left locations of rows it never committed in the shared map.
    const turn =
      gate &&
      (<T>(write: () => T): T =>
        gate.run(m.ticket, () => {
          if (gate.takeWriterDied()) forgetKvLocations(db);
          return write();
        }));
    const text = typeof m.text === "string" ? m.text : utf8Text(m.text);
    const { reply, tally } = ingestBodyTallied(db, text, m.contentType, {
      sender: m.sender,
      turn,
      lockWaitMs: LOCK_WAIT_MS,
    });
    parentPort!.postMessage({ id: m.id, reply: JSON.stringify(reply), tally });
  } catch (err) {
    const error =
      err instanceof AppError
        ? { code: err.code, message: err.message }
        : { code: "INTERNAL", message: "internal error" };
    if (!(err instanceof AppError)) log().error({ err: errorMessage(err) }, "ingest failed");
    parentPort!.postMessage({ id: m.id, error });
  }
});
