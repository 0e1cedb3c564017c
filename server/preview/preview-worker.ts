// A preview thread: its own read connection to the database file, kept between jobs (starting a thread costs
// seconds of module loading), with a helper thread that replays each job's baseline beside its candidate; each job
// message is one preview, its progress and result posted back with its id.
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/client";
import { AppError } from "../errors";
import { baselineThread } from "./baseline-thread";
import { computePreviewParallel } from "./compute";
import type { PreparedPreview } from "./request";

const { dbFile } = workerData as { dbFile: string };
const db = openDb(dbFile, 200);
const helper = baselineThread(dbFile);

parentPort!.on("message", (m: { id: number; request: PreparedPreview }) => {
  let last = 0;
  computePreviewParallel(db, m.request, helper.run, {
    progress: (share) => {
      const now = Date.now();
      if (now - last < 200 && share < 1) return;
      last = now;
      parentPort!.postMessage({ id: m.id, progress: share });
    },
  }).then(
    (result) => parentPort!.postMessage({ id: m.id, result }),
    (err: unknown) =>
      parentPort!.postMessage({
        id: m.id,
        error: err instanceof Error ? err.message : String(err),
        code: err instanceof AppError ? err.code : "INTERNAL",
      }),
  );
});
