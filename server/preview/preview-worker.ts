// A preview job's thread: its own read connection to the database file, one preview (its candidate run in a thread of
// its own), its progress and result posted back.
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/client";
import { AppError } from "../errors";
import { computePreviewParallel } from "./compute";
import type { PreparedPreview } from "./request";

const { dbFile, request } = workerData as { dbFile: string; request: PreparedPreview };
const db = openDb(dbFile, 200);
let last = 0;

computePreviewParallel(db, request, {
  progress: (share) => {
    const now = Date.now();
    if (now - last < 200 && share < 1) return;
    last = now;
    parentPort!.postMessage({ progress: share });
  },
})
  .then((result) => parentPort!.postMessage({ result }))
  .catch((err: unknown) =>
    parentPort!.postMessage({
      error: err instanceof Error ? err.message : String(err),
      code: err instanceof AppError ? err.code : "INTERNAL",
    }),
  )
  .finally(() => db.$client.close());
