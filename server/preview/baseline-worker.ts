// A baseline helper thread (baseline-thread.ts): reads the window on its own connection and replays it under the
// policies in force, posting the run with the key it was read under.
import { parentPort, workerData } from "node:worker_threads";
import { openDb } from "../../db/client";
import { prepareRuns, replayRun } from "./compute";
import type { PreparedPreview } from "./request";

const { dbFile, progress } = workerData as { dbFile: string; progress: Float64Array };
const db = openDb(dbFile, 200);

parentPort!.on("message", (m: { id: number; request: PreparedPreview }) => {
  try {
    const prep = prepareRuns(db, m.request);
    const run = replayRun(prep, 0, (share) => (progress[0] = share));
    parentPort!.postMessage({ id: m.id, key: prep.key, run });
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
  }
});

parentPort!.postMessage({ id: 0, ready: true });
