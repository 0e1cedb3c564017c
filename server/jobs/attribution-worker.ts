// The attribution worker thread: its own connection to the database file, the job running continuously while behind.
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/client";
import { runAttributionLoop } from "./attribution";
import { lowerThreadPriority, sleepWhile } from "./thread-priority";
import { BusySignal } from "../ingest/busy-signal";

/** The longest sleep between two transactions while ingest is busy: attribution still moves when ingest never rests. */
const INGEST_PAUSE_MS = 10;

const { dbFile, retentionHours, ingestBusy } = workerData as {
  dbFile: string;
  retentionHours: number;
  ingestBusy?: SharedArrayBuffer;
};
// Ingest keeps priority for the CPU too: while both are busy (a 2-core machine), this thread runs on what is left.
lowerThreadPriority(10);
// A write waits at most 200 ms for ingest's lock, then the step rolls back and retries (ingest keeps priority).
const db = openDb(dbFile, 200);
// Derived data: after a power loss the job re-derives whatever its last transactions wrote (cursors roll back with them).
db.$client.pragma("synchronous = NORMAL");
// And for the write lock and the cores: while ingest is busy, a short sleep before each transaction.
const busy = ingestBusy ? new BusySignal(ingestBusy) : null;
const loop = runAttributionLoop(
  db,
  retentionHours,
  1_000,
  Date.now,
  busy ? () => sleepWhile(() => busy.busy(), INGEST_PAUSE_MS) : undefined,
);

parentPort!.on("message", (m: { stop?: boolean }) => {
  if (!m.stop) return;
  void loop.stop().then(() => {
    db.$client.close();
    parentPort!.postMessage({ stopped: true });
  });
});
