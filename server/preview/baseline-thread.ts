import path from "node:path";
import { Worker } from "node:worker_threads";
import type { BaselineRunner } from "./compute";
import type { Replayed } from "./run";

// A helper thread that replays baselines for one preview thread (or the benchmark): its own read connection to the
// database file, kept for the life of its owner; progress through shared memory (the owner's thread is busy with
// the candidate run while the helper works, so messages would only be read at the end).

const WORKER_FILE = path.join(process.cwd(), "server", "preview", "baseline-worker-entry.mjs");

type Reply = { id: number; key?: string; run?: Replayed; error?: string; ready?: true };

/** Start the helper; `close` ends it. Requests are answered one at a time, in order. */
export function baselineThread(dbFile: string): {
  run: BaselineRunner;
  /** Resolves once the thread has loaded its modules and opened the database. */
  ready: Promise<void>;
  close: () => Promise<number>;
} {
  const shared = new Float64Array(new SharedArrayBuffer(8));
  const worker = new Worker(WORKER_FILE, { workerData: { dbFile, progress: shared } });
  worker.unref();
  const pending = new Map<
    number,
    { resolve: (v: { key: string; run: Replayed }) => void; reject: (e: Error) => void }
  >();
  let seq = 0;
  let onReady = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on("message", (m: Reply) => {
    if (m.ready) return onReady();
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.key !== undefined && m.run) p.resolve({ key: m.key, run: m.run });
    else p.reject(new Error(m.error ?? "baseline run failed"));
  });
  worker.on("error", failAll);
  worker.on("exit", (code) => {
    onReady();
    failAll(new Error(`baseline thread exited (${code})`));
  });
  const run: BaselineRunner = (request) => {
    const id = ++seq;
    shared[0] = 0;
    const done = new Promise<{ key: string; run: Replayed }>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, request });
    });
    return { done, progress: () => shared[0]! };
  };
  return { run, ready, close: () => worker.terminate() };
}
