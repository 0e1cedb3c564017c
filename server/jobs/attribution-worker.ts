// The attribution worker thread: its own connection to the database (a SQLite file, or a PostgreSQL pool of its own),
// the job running continuously while behind.
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/sqlite/client";
import { joinWriteIntent, yieldToWriters } from "../../db/sqlite/write-intent";
import { connectPg } from "../../db/pg/client";
import { runAttributionLoop } from "./attribution";
import { pgAttribution } from "./attribution-pg";
import { runAttributionLoopPg } from "./attribution-pg-loop";
import { lowerThreadPriority, pacedNaps } from "./thread-priority";
import { BusySignal } from "../ingest/busy-signal";
import { errorMessage, log } from "../observability/logger";
import { reportThreadMemory } from "../observability/thread-memory";
import { SQLITE_CACHE_MB } from "../../lib/memory-bounds";

reportThreadMemory();

/**
 * Naps before each transaction while ingest is busy: 4 times the work since the last, within 10-500 ms. Attribution
 * keeps at least a fifth of the time when ingest never rests: a 64-worker cluster (8 times the steady scenario's 8,
 * attributed at 100x real time or more) needs about a twelfth of a core in real time. Against a fixed 10 ms
 * (bench:storage, alternating): the steady hour ingested at 21.0k and 21.5k against 14.5k and 18.9k events/s, and
 * attribution caught up from the first post at 95x and 89x against 74x.
 */
const INGEST_PACE = { ratio: 4, minMs: 10, maxMs: 500 };

const { dbFile, databaseUrl, retentionHours, ingestBusy, writeIntent } = workerData as {
  dbFile?: string;
  databaseUrl?: string;
  retentionHours: number;
  ingestBusy?: SharedArrayBuffer;
  writeIntent?: SharedArrayBuffer;
};
// Ingest keeps priority for the CPU too: while both are busy (a 2-core machine), this thread runs on what is left.
lowerThreadPriority(10);
// And for the write lock and the cores: while ingest is busy, a short sleep before each transaction.
const busy = ingestBusy ? new BusySignal(ingestBusy) : null;
const between = busy ? pacedNaps(() => busy.busy(), INGEST_PACE) : undefined;

let stop: () => Promise<void>;
if (databaseUrl) {
  // Two connections: the job's reads and its short transactions; ingest's pool is the dashboard's own.
  const pg = connectPg(databaseUrl, { max: 2 });
  const loop = runAttributionLoopPg(pgAttribution(pg), retentionHours, 1_000, between, (err) =>
    log().error({ err: errorMessage(err) }, "attribution failed"),
  );
  stop = async () => {
    await loop.stop();
    await pg.$client.end({ timeout: 5 });
  };
} else {
  // A write waits at most 200 ms for ingest's lock, then the step rolls back and retries (ingest keeps priority).
  const db = openDb(dbFile!, 200, SQLITE_CACHE_MB.attribution);
  // Derived data: after a power loss the job re-derives whatever its last transactions wrote (cursors roll back with them).
  db.$client.pragma("synchronous = NORMAL");
  // Then, last before each transaction: a writer on the dashboard's event loop waiting for the lock goes first.
  joinWriteIntent(writeIntent);
  const beforeTx = () => {
    between?.();
    yieldToWriters();
  };
  const loop = runAttributionLoop(db, retentionHours, 1_000, Date.now, beforeTx);
  stop = async () => {
    await loop.stop();
    db.$client.close();
  };
}

parentPort!.on("message", (m: { stop?: boolean }) => {
  if (!m.stop) return;
  void stop().then(() => parentPort!.postMessage({ stopped: true }));
});
