import type { ResourceLimits, Worker } from "node:worker_threads";
import { ingestBusySignal } from "../ingest/busy-signal";
import { writeIntent } from "../../db/sqlite/write-intent";
import { noteRestart, Restarts, startThread } from "../threads";

/** Where the job runs: a SQLite file's path, or a PostgreSQL URL (the store of SWITCHYARD_DATABASE_URL). */
export type AttributionTarget = string | { databaseUrl: string };

/**
 * Start cache-miss attribution in a worker thread on its own connection to the target (off the dashboard's event loop);
 * with the process's ingest busy signal (server/ingest/busy-signal.ts) it pauses between its transactions while
 * ingest is busy, and on SQLite it holds back a transaction while a writer on the event loop waits for the lock
 * (db/sqlite/write-intent.ts). A thread that stops by itself (past its heap limit, or crashed) is restarted with a log line and a
 * /metrics count; it resumes from what it had committed. The returned function stops it after its current step and
 * resolves once its connection is closed.
 */
export function startAttributionThread(
  target: AttributionTarget,
  retentionHours: number,
  ingestBusy: SharedArrayBuffer = ingestBusySignal().buffer,
  limits?: ResourceLimits,
): () => Promise<void> {
  const where = typeof target === "string" ? { dbFile: target } : { databaseUrl: target.databaseUrl };
  let stopping = false;
  let worker: Worker;
  const restarts = new Restarts();
  const start = () => {
    let failure: unknown = null;
    worker = startThread(
      "attribution",
      "attribution",
      { ...where, retentionHours, ingestBusy, writeIntent: writeIntent().buffer },
      { limits },
    );
    worker.on("error", (err) => (failure = err));
    worker.on("exit", () => {
      if (stopping) return;
      noteRestart("attribution", "attribution", failure ?? new Error("exited"));
      restarts.schedule("attribution", () => {
        if (!stopping) start();
      });
    });
    worker.unref();
  };
  start();
  return () =>
    new Promise<void>((resolve) => {
      stopping = true;
      const w = worker;
      const timer = setTimeout(() => void w.terminate().then(() => resolve()), 5_000);
      w.once("message", () => {
        clearTimeout(timer);
        void w.terminate().then(() => resolve());
      });
      w.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      w.postMessage({ stop: true });
    });
}
