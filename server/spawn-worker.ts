import v8 from "node:v8";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/** How long starting a thread with a heap floor waits for the thread to say its heap is set up. */
const SET_UP_WAIT_MS = 2_000;

/**
 * A worker thread running the module `file`, whose V8 heap runs no full (mark-compact) collection while its old
 * generation is under `floorMb` (0: V8's own limits, a plain `new Worker`). V8 otherwise sets a thread's next full
 * collection at about 1.6 times what the last one left: a thread that keeps little and drops much (an ingest thread:
 * a body's events and rows) then collects fully every few MB, and each full collection moves whatever is young and
 * still in use into the old generation, which brings the next one sooner (docs/benchmarks.md).
 *
 * Node's resourceLimits have no such setting. V8 reads the flag `--initial-old-space-size` as it sets up each
 * thread's heap, and a heap set up with it keeps that size as its floor (capped at half its old-generation limit).
 * So the flag is set for this thread alone: it starts with a short script that first says its heap is set up and
 * then loads `file`; the event loop waits for that (20–50 ms here, Node starting a thread) and clears the flag, so no
 * other thread starts in between to take the floor. A flag given on the command line is cleared too.
 */
export function spawnWorker(file: string, options: WorkerOptions, floorMb: number): Worker {
  if (!(floorMb > 0)) return new Worker(file, options);
  const setUp = new Int32Array(new SharedArrayBuffer(4));
  const boot = [
    `const { workerData } = require("node:worker_threads");`,
    `const setUp = new Int32Array(workerData.heapSetUp);`,
    `Atomics.store(setUp, 0, 1);`,
    `Atomics.notify(setUp, 0);`,
    `import(${JSON.stringify(pathToFileURL(file).href)});`,
  ].join("\n");
  v8.setFlagsFromString(`--initial-old-space-size=${Math.floor(floorMb)}`);
  try {
    const worker = new Worker(boot, {
      ...options,
      eval: true,
      workerData: { ...(options.workerData as object), heapSetUp: setUp.buffer },
    });
    Atomics.wait(setUp, 0, 0, SET_UP_WAIT_MS);
    return worker;
  } finally {
    v8.setFlagsFromString("--initial-old-space-size=0");
  }
}
