// One replay run in its own thread (the candidate side of a parallel preview): progress and the run's result posted back.
import { parentPort, workerData } from "node:worker_threads";
import type { ReplayJob } from "./parallel";
import { replayOnce } from "./run";

const job = workerData as ReplayJob;
let last = 0;
try {
  const result = replayOnce(
    job.input,
    job.docs,
    job.header,
    job.shape,
    new Map(job.shapes),
    (share) => {
      const now = Date.now();
      if (now - last < 200 && share < 1) return;
      last = now;
      parentPort!.postMessage({ progress: share });
    },
    undefined,
  );
  parentPort!.postMessage({ result });
} catch (err) {
  parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
