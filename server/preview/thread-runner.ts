import { MessageChannel, type MessagePort, type Worker } from "node:worker_threads";
import { AppError, type AppErrorCode } from "../errors";
import type { Runner } from "./runners";
import type { PreviewResult } from "./types";
import { isOutOfMemory, noteRestart, startThread } from "../threads";
import { PREVIEW_IDLE_EXIT_MS } from "../../lib/memory-bounds";

// Preview jobs in worker threads, installed by the server process (server/main.ts, with setPreviewRunner): route code
// is bundled apart from it and must not import this module (it starts threads from dist/threads/preview.mjs).

type Message = {
  id: number;
  progress?: number;
  result?: PreviewResult;
  /** A task's answer (server/capacity/compute.ts). */
  done?: unknown;
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
  /** Heap limit of each thread (SWITCHYARD_PREVIEW_MEMORY_MB); a job whose thread passes it stops "out of memory". */
  memoryMb?: number;
  /** An idle thread exits after this long and gives its memory back (default IDLE_EXIT_MS). */
  idleMs?: number;
};

/** How long a preview thread waits idle for another job before it exits. */
export const IDLE_EXIT_MS = PREVIEW_IDLE_EXIT_MS;

/**
 * Run each job in a worker thread with its own connection to `dbFile` (or to PostgreSQL, options.databaseUrl). Threads are kept between jobs and serve as
 * jobs or as helpers: a job the queue grants a helper gets a second thread, joined to its own by a message channel,
 * that replays its baseline and is free again (idle) once it has. Stopping a job terminates its thread and its helper
 * if that is still at work; new threads start for later jobs.
 */
export function threadRunner(dbFile: string, options: ThreadRunnerOptions = {}): Runner {
  const memoryMb = options.memoryMb ?? 1024;
  const idleMs = options.idleMs ?? IDLE_EXIT_MS;
  // Idle threads, each with the timer that ends it; labels (preview-1, -2, …) are reused once a thread has exited.
  const idleTimers = new Map<Worker, NodeJS.Timeout>();
  const idle = {
    push(worker: Worker) {
      const timer = setTimeout(() => {
        idleTimers.delete(worker);
        void worker.terminate();
      }, idleMs);
      timer.unref();
      idleTimers.set(worker, timer);
    },
    pop(): Worker | undefined {
      const last = [...idleTimers.keys()].pop();
      if (last) idle.remove(last);
      return last;
    },
    remove(worker: Worker): boolean {
      const timer = idleTimers.get(worker);
      if (!timer) return false;
      clearTimeout(timer);
      idleTimers.delete(worker);
      return true;
    },
  };
  const labels = new Set<number>();
  const labelOf = new WeakMap<Worker, string>();
  let seq = 0;
  const take = () => {
    let worker = idle.pop();
    if (!worker) {
      let n = 1;
      while (labels.has(n)) n++;
      labels.add(n);
      worker = startThread(
        "preview",
        `preview-${n}`,
        { dbFile, databaseUrl: options.databaseUrl, minHelpedTurns: options.minHelpedTurns },
        { previewMb: memoryMb },
      );
      labelOf.set(worker, `preview-${n}`);
      worker.once("exit", () => {
        labels.delete(n);
        idle.remove(worker!);
      });
      options.onThread?.(worker);
    }
    worker.unref();
    return worker;
  };
  const stopped = (err: Error) =>
    isOutOfMemory(err)
      ? new AppError(
          "UNPROCESSABLE",
          `stopped: out of memory (the replay passed the preview's heap limit of ${memoryMb.toLocaleString("en-US")} MB, SWITCHYARD_PREVIEW_MEMORY_MB); choose a shorter window or a smaller cluster`,
        )
      : err;
  /** Post a job to a thread (with a helper for its baseline when `helper` is given) and follow it to its answer. */
  function dispatch<T>(
    post: (worker: Worker, id: number, aide: { port: MessagePort } | null) => void,
    progress: (share: number) => void,
    helper?: () => void,
  ): { done: Promise<T>; stop: () => void } {
    const worker = take();
    const id = ++seq;
    let aide = helper ? lend(take(), id, helper) : null;
    let settle: { resolve: (r: T) => void; reject: (e: Error) => void } | null = null;
    const onMessage = (m: Message) => {
      if (m.id !== id || !settle) return;
      if (m.progress !== undefined) return progress(m.progress);
      const s = settle;
      settle = null;
      detach();
      idle.push(worker);
      const answer = m.result ?? m.done;
      if (answer !== undefined) s.resolve(answer as T);
      else s.reject(new AppError(m.code ?? "INTERNAL", m.error ?? "preview failed"));
    };
    const onExit = (code: number) => {
      detach();
      settle?.reject(new Error(`preview thread exited (${code})`));
      settle = null;
    };
    const onError = (err: Error) => {
      detach();
      if (isOutOfMemory(err))
        noteRestart("preview", labelOf.get(worker) ?? "preview", err, "its job is reported stopped");
      settle?.reject(stopped(err));
      settle = null;
    };
    const detach = () => {
      worker.off("message", onMessage);
      worker.off("exit", onExit);
      worker.off("error", onError);
    };
    const done = new Promise<T>((resolve, reject) => {
      settle = { resolve, reject };
      worker.on("message", onMessage);
      worker.on("exit", onExit);
      worker.on("error", onError);
      post(worker, id, aide);
    });
    return {
      done,
      stop: () => {
        idle.remove(worker);
        void worker.terminate();
        aide?.stop();
        aide = null;
      },
    };
  }
  const run: Runner = (request, progress, opts) =>
    dispatch<PreviewResult>(
      (worker, id, aide) => {
        if (aide) worker.postMessage({ id, request, helper: aide.port }, [aide.port]);
        else worker.postMessage({ id, request });
      },
      progress,
      opts?.helper ? opts.helperDone : undefined,
    );
  run.task = (task) =>
    dispatch<unknown>(
      (worker, id) => worker.postMessage({ id, task }),
      () => undefined,
    );

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
