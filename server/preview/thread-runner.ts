import path from "node:path";
import { Worker } from "node:worker_threads";
import { AppError, type AppErrorCode } from "../errors";
import type { Runner } from "./queue";
import type { PreviewResult } from "./types";

// Preview jobs in worker threads, installed by the server process (server/main.ts, with setPreviewRunner): route code
// is bundled apart from it and must not import this module (the thread's entry loads TypeScript through tsx).

const WORKER_FILE = path.join(process.cwd(), "server", "preview", "preview-worker-entry.mjs");

type Message = { id: number; progress?: number; result?: PreviewResult; error?: string; code?: AppErrorCode };

/**
 * Run each job in a worker thread with its own connection to `dbFile`. Threads are kept between jobs (one per running
 * job, so at most MAX_RUNNING); stopping a job terminates its thread, and a new one starts for the next job.
 */
export function threadRunner(dbFile: string): Runner {
  const idle: Worker[] = [];
  let seq = 0;
  return (request, progress) => {
    const worker = idle.pop() ?? new Worker(WORKER_FILE, { workerData: { dbFile } });
    worker.unref();
    const id = ++seq;
    let settle: { resolve: (r: PreviewResult) => void; reject: (e: Error) => void } | null = null;
    const onMessage = (m: Message) => {
      if (m.id !== id || !settle) return;
      if (m.progress !== undefined) return progress(m.progress);
      const s = settle;
      settle = null;
      detach();
      idle.push(worker);
      if (m.result) s.resolve(m.result);
      else s.reject(new AppError(m.code ?? "INTERNAL", m.error ?? "preview failed"));
    };
    const onExit = (code: number) => {
      detach();
      settle?.reject(new Error(`preview thread exited (${code})`));
      settle = null;
    };
    const onError = (err: Error) => {
      detach();
      settle?.reject(err);
      settle = null;
    };
    const detach = () => {
      worker.off("message", onMessage);
      worker.off("exit", onExit);
      worker.off("error", onError);
    };
    const done = new Promise<PreviewResult>((resolve, reject) => {
      settle = { resolve, reject };
      worker.on("message", onMessage);
      worker.on("exit", onExit);
      worker.on("error", onError);
      worker.postMessage({ id, request });
    });
    return {
      done,
      stop: () => {
        const i = idle.indexOf(worker);
        if (i >= 0) idle.splice(i, 1);
        void worker.terminate();
      },
    };
  };
}
