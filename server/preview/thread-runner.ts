import { MessageChannel, Worker } from "node:worker_threads";
import { AppError, type AppErrorCode } from "../errors";
import type { Runner } from "./queue";
import type { PreviewResult } from "./types";
import { threadFile } from "../threads";

// Preview jobs in worker threads, installed by the server process (server/main.ts, with setPreviewRunner): route code
// is bundled apart from it and must not import this module (it starts threads from dist/threads/preview.mjs).


type Message = {
  id: number;
  progress?: number;
  result?: PreviewResult;
  error?: string;
  code?: AppErrorCode;
  helped?: true;
};

export type ThreadRunnerOptions = {
  /** PostgreSQL's URL when the store is there: each thread reads the window over its own connection to it. */
  databaseUrl?: string;
  /** false: never a helper thread, each job replays baseline and candidate on its one thread (for comparison). */
  concurrent?: boolean;
  /** Windows with fewer turns are not helped (default MIN_HELPED_TURNS; tests help small ones). */
  minHelpedTurns?: number;
  /** Called with each thread started (tests watch them exit). */
  onThread?: (worker: Worker) => void;
};

/**
 * Run each job in a worker thread with its own connection to `dbFile` (or to PostgreSQL, options.databaseUrl). Threads are kept between jobs and serve as
 * jobs or as helpers: a job the queue grants a helper gets a second thread, joined to its own by a message channel,
 * that replays its baseline and is free again (idle) once it has. Stopping a job terminates its thread and its helper
 * if that is still at work; new threads start for later jobs.
 */
export function threadRunner(dbFile: string, options: ThreadRunnerOptions = {}): Runner {
  const idle: Worker[] = [];
  let seq = 0;
  const take = () => {
    let worker = idle.pop();
    if (!worker) {
      worker = new Worker(threadFile("preview"), {
        workerData: { dbFile, databaseUrl: options.databaseUrl, minHelpedTurns: options.minHelpedTurns },
      });
      options.onThread?.(worker);
    }
    worker.unref();
    return worker;
  };
  const run: Runner = (request, progress, opts) => {
    const worker = take();
    const id = ++seq;
    let aide = opts?.helper ? lend(take(), id, opts.helperDone) : null;
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
      if (aide) worker.postMessage({ id, request, helper: aide.port }, [aide.port]);
      else worker.postMessage({ id, request });
    });
    return {
      done,
      stop: () => {
        const i = idle.indexOf(worker);
        if (i >= 0) idle.splice(i, 1);
        void worker.terminate();
        aide?.stop();
        aide = null;
      },
    };
  };

  /**
   * Make `worker` the helper of job `id`: it gets one end of a new channel, the job's thread the other (`port`).
   * Once it says it has helped, it is idle again and `helperDone` is called; if it dies, the job's thread sees the
   * channel close and replays the baseline itself.
   */
  function lend(worker: Worker, id: number, helperDone: () => void) {
    const { port1, port2 } = new MessageChannel();
    let busy = true;
    const end = (keep: boolean) => {
      if (!busy) return;
      busy = false;
      worker.off("message", onMessage);
      worker.off("exit", onGone);
      worker.off("error", onGone);
      if (keep) idle.push(worker);
      helperDone();
    };
    const onMessage = (m: Message) => {
      if (m.id === id && m.helped) end(true);
    };
    const onGone = () => end(false);
    worker.on("message", onMessage);
    worker.on("exit", onGone);
    worker.on("error", onGone);
    worker.postMessage({ id, serve: port2 }, [port2]);
    return {
      port: port1,
      stop: () => {
        if (!busy) return;
        busy = false;
        worker.off("message", onMessage);
        worker.off("exit", onGone);
        worker.off("error", onGone);
        void worker.terminate();
      },
    };
  }

  run.helpers = options.concurrent !== false;
  return run;
}
