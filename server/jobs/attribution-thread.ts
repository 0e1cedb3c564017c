import { Worker } from "node:worker_threads";
import { log } from "../observability/logger";
import { ingestBusySignal } from "../ingest/busy-signal";
import { threadFile } from "../threads";


/** Where the job runs: a SQLite file's path, or a PostgreSQL URL (the store of SWITCHYARD_DATABASE_URL). */
export type AttributionTarget = string | { databaseUrl: string };

/**
 * Start cache-miss attribution in a worker thread on its own connection to the target (off the dashboard's event loop);
 * with the process's ingest busy signal (server/ingest/busy-signal.ts) it pauses between its transactions while
 * ingest is busy. The returned function stops it after its current step and resolves once its connection is closed.
 */
export function startAttributionThread(
  target: AttributionTarget,
  retentionHours: number,
  ingestBusy: SharedArrayBuffer = ingestBusySignal().buffer,
): () => Promise<void> {
  const where = typeof target === "string" ? { dbFile: target } : { databaseUrl: target.databaseUrl };
  const worker = new Worker(threadFile("attribution"), { workerData: { ...where, retentionHours, ingestBusy } });
  worker.on("error", (err) => log().error({ err: err.message }, "attribution worker failed"));
  worker.unref();
  return () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => void worker.terminate().then(() => resolve()), 5_000);
      worker.once("message", () => {
        clearTimeout(timer);
        void worker.terminate().then(() => resolve());
      });
      worker.once("exit", () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ stop: true });
    });
}
