import { runTask, type ThreadTask } from "../capacity/compute";
import { computePreview, type WindowFrom } from "./compute";
import type { PreparedPreview } from "./request";
import type { PreviewResult } from "./types";

// What runs a preview queue's jobs: the server process installs a thread runner (thread-runner.ts, with
// setPreviewRunner); tests and in-memory stores run them on this thread (inProcessRunner).

/** A runner's job may use a helper thread for its baseline; `helperDone` is called once the helper is free again. */
export type RunOptions = { helper: boolean; helperDone: () => void };

/**
 * Runs one job; `stop` abandons it (and its helper). The server process installs a thread runner (thread-runner.ts);
 * `helpers`: the runner can run a job's baseline in a helper thread (RunOptions.helper).
 */
export type Runner = ((
  request: PreparedPreview,
  progress: (share: number) => void,
  options?: RunOptions,
) => { done: Promise<PreviewResult>; stop: () => void }) & {
  helpers?: boolean;
  /** Run a task (the capacity page's jobs) on a thread of the same pool. */
  task?: (task: ThreadTask) => { done: Promise<unknown>; stop: () => void };
};

const key = Symbol.for("switchyard.previewRunner");
type Holder = { [key]?: Runner };

/** The installed runner, if any (route handlers use it; tests and in-memory stores run previews inline). */
export function installedPreviewRunner(): Runner | undefined {
  return (globalThis as Holder)[key];
}

/** Install (or with undefined, remove) the process's preview runner. */
export function setPreviewRunner(run: Runner | undefined): void {
  if (run) (globalThis as Holder)[key] = run;
  else delete (globalThis as Holder)[key];
}

/** Run a task on this thread after the current tick; stop takes effect between a replay's minutes. */
export function inlineTask(from: WindowFrom, task: ThreadTask): { done: Promise<unknown>; stop: () => void } {
  let stopped = false;
  const done = new Promise<unknown>((resolve, reject) => {
    setImmediate(() => runTask(from, task, () => stopped).then(resolve, reject));
  });
  return { done, stop: () => (stopped = true) };
}

/** Run each job on this thread after the current tick (tests, in-memory databases); stop takes effect between minutes. */
export function inProcessRunner(from: WindowFrom): Runner {
  return (request, progress) => {
    let stopped = false;
    const done = new Promise<PreviewResult>((resolve, reject) => {
      setImmediate(() => computePreview(from, request, { progress, cancelled: () => stopped }).then(resolve, reject));
    });
    return { done, stop: () => (stopped = true) };
  };
}
