// A preview thread: its own read connection to the database file, kept between jobs (starting a thread costs
// seconds of module loading), and the baselines it replayed (a second candidate on a window replays only itself);
// each job message is one preview, its progress and result posted back with its id.
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/client";
import { AppError } from "../errors";
import { computePreview } from "./compute";
import type { PreparedPreview } from "./request";

const { dbFile } = workerData as { dbFile: string };
const db = openDb(dbFile, 200);

parentPort!.on("message", (m: { id: number; request: PreparedPreview }) => {
  let last = 0;
  try {
    const result = computePreview(db, m.request, {
      progress: (share) => {
        const now = Date.now();
        if (now - last < 200 && share < 1) return;
        last = now;
        parentPort!.postMessage({ id: m.id, progress: share });
      },
    });
    parentPort!.postMessage({ id: m.id, result });
  } catch (err) {
    parentPort!.postMessage({
      id: m.id,
      error: err instanceof Error ? err.message : String(err),
      code: err instanceof AppError ? err.code : "INTERNAL",
    });
  }
});
