// The attribution worker thread: its own connection to the database file, the job running continuously while behind.
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/client";
import { runAttributionLoop } from "./attribution";
import { lowerThreadPriority } from "./thread-priority";

const { dbFile, retentionHours } = workerData as { dbFile: string; retentionHours: number };
// Ingest keeps priority for the CPU too: while both are busy (a 2-core machine), this thread runs on what is left.
lowerThreadPriority(10);
// A write waits at most 200 ms for ingest's lock, then the step rolls back and retries (ingest keeps priority).
const db = openDb(dbFile, 200);
// Derived data: after a power loss the job re-derives whatever its last transactions wrote (cursors roll back with them).
db.$client.pragma("synchronous = NORMAL");
const loop = runAttributionLoop(db, retentionHours);

parentPort!.on("message", (m: { stop?: boolean }) => {
  if (!m.stop) return;
  void loop.stop().then(() => {
    db.$client.close();
    parentPort!.postMessage({ stopped: true });
  });
});
