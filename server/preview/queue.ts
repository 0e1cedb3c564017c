import { findPreview, insertPreview } from "../../db/store/previews";
import type { Store } from "../../db/store/store";
import { AppError, type AppErrorCode } from "../errors";
import type { WindowFrom } from "./compute";
import type { PreparedPreview } from "./request";
import type { PreviewResult } from "./types";
import { PREVIEW_KEEP_FINISHED_MS, PREVIEW_KEPT_JOBS } from "../../lib/memory-bounds";
import type { ThreadTask } from "../capacity/compute";
import { inlineTask, type Runner } from "./runners";

// Preview jobs: at most two replay at once (each in its own worker thread on its own connection, so the dashboard's
// event loop stays free), the others wait in order with their place known; a job can be cancelled queued or running.
// A finished result is kept per (kind, content, window, cluster): asking again answers from the database at once.
//
// Threads: previews use at most MAX_RUNNING threads in all (one per core on the 2-core machine). A job that starts
// while the other slot is free and nobody waits also takes that slot for a helper thread, which replays the baseline
// beside the candidate (when the runner has helpers). The helper's slot is given back as soon as the helper is done
// (or not needed: the baseline was kept), so a job submitted meanwhile waits at most one baseline run, first in line.

export const MAX_RUNNING = 2;
/** Jobs waiting for a slot at most; one more is refused (429) until one starts. */
export const MAX_WAITING = 8;
/** Jobs one caller may have queued or running at once (joining an identical job does not count). */
export const MAX_PER_OWNER = 2;
/** What a refusal tells the caller to wait, in seconds (a preview of an hour takes seconds to tens of seconds). */
export const RETRY_AFTER_SECONDS = 30;
const KEEP_FINISHED_MS = PREVIEW_KEEP_FINISHED_MS;

export type JobStatus = "queued" | "running" | "done" | "failed" | "cancelled";
export type JobView = {
  id: string;
  status: JobStatus;
  /** 1-based place in the queue while queued (1: next to start), else null. */
  place: number | null;
  progress: number;
  result: PreviewResult | null;
  error: string | null;
};

type Job = {
  id: string;
  key: string;
  request: PreparedPreview;
  /** Set for a task job (request is then unused) and, once done, its answer. */
  task: ThreadTask | null;
  taskResult: unknown;
  status: JobStatus;
  progress: number;
  result: PreviewResult | null;
  error: string | null;
  errorCode: AppErrorCode | null;
  finishedAt: number | null;
  stop: (() => void) | null;
  /** The job holds a second slot for its helper thread. */
  helper: boolean;
  /** Who submitted it first ("" when unknown), and how many submitters still want its answer. */
  owner: string;
  holders: number;
  waiters: { resolve: (v: JobView) => void }[];
};

const keyOf = (p: PreparedPreview) => `${p.kind}:${p.contentHash}:${p.from}:${p.to}:${p.clusterKey}`;
const taskKey = (t: ThreadTask) => `task:${JSON.stringify(t)}`;

export class PreviewQueue {
  private jobs = new Map<string, Job>();
  private waiting: Job[] = [];
  /** Slots taken: one per running job, one more per helper thread. */
  private threads = 0;
  private seq = 0;

  constructor(
    private store: Store,
    private runner: Runner,
    private now: () => number = Date.now,
  ) {}

  /**
   * Start (or join) a preview; a stored result answers as a finished job. A new job is refused (TOO_MANY_REQUESTS)
   * when `owner` already has MAX_PER_OWNER queued or running, or MAX_WAITING jobs wait.
   */
  async submit(request: PreparedPreview, owner = ""): Promise<JobView> {
    this.prune();
    const stored = await findPreview(
      this.store,
      request.kind,
      request.contentHash,
      request.from,
      request.to,
      request.clusterKey,
    );
    if (stored) {
      const job = this.newJob(request);
      job.status = "done";
      job.progress = 1;
      job.result = JSON.parse(stored.result) as PreviewResult;
      job.finishedAt = this.now();
      return this.view(job);
    }
    const joined = this.join(keyOf(request));
    if (joined) return this.view(joined);
    this.admit(owner);
    const job = this.newJob(request);
    job.owner = owner;
    this.waiting.push(job);
    this.pump();
    return this.view(job);
  }

  /**
   * Run a task (the capacity page's curves or replayed capacities) in a preview slot: it waits in line with previews
   * under the same limits, never takes a helper, and joins an identical task already queued or running. Resolves
   * with its answer; rejects with its error, or when it is cancelled (`signal` aborted and nobody else waits for it).
   */
  async task(task: ThreadTask, owner = "", signal?: AbortSignal): Promise<unknown> {
    this.prune();
    let job = this.join(taskKey(task));
    if (!job) {
      this.admit(owner);
      job = this.newJob(null, task);
      job.owner = owner;
      this.waiting.push(job);
      this.pump();
    }
    const id = job.id;
    const gone = () => this.release(id);
    signal?.addEventListener("abort", gone, { once: true });
    if (signal?.aborted) gone();
    const done = await this.wait(id).finally(() => signal?.removeEventListener("abort", gone));
    if (done.status === "done") return job.taskResult;
    throw this.errorOf(id) ?? new AppError("CONFLICT", `the job was ${done.status}`);
  }

  /** A queued or running job with this key, now held by one more caller; null when there is none. */
  private join(key: string): Job | null {
    for (const j of this.jobs.values())
      if (j.key === key && (j.status === "queued" || j.status === "running")) {
        j.holders++;
        return j;
      }
    return null;
  }

  /** Refuse a new job (TOO_MANY_REQUESTS) when `owner` has MAX_PER_OWNER queued or running, or MAX_WAITING wait. */
  private admit(owner: string): void {
    const active = [...this.jobs.values()].filter(
      (j) => owner && j.owner === owner && (j.status === "queued" || j.status === "running"),
    );
    if (active.length >= MAX_PER_OWNER)
      throw new AppError(
        "TOO_MANY_REQUESTS",
        `you have ${active.length} previews queued or running (at most ${MAX_PER_OWNER}): wait for one to finish`,
        { retry_after: RETRY_AFTER_SECONDS },
      );
    if (this.waiting.length >= MAX_WAITING)
      throw new AppError(
        "TOO_MANY_REQUESTS",
        `${this.waiting.length} previews are waiting (at most ${MAX_WAITING}): try again in ${RETRY_AFTER_SECONDS} s`,
        { retry_after: RETRY_AFTER_SECONDS },
      );
  }

  /** A job's state; null when unknown (or finished long ago). */
  status(id: string): JobView | null {
    const job = this.jobs.get(id);
    return job ? this.view(job) : null;
  }

  /** Cancel a queued or running job; false when it was not (any longer) cancellable. */
  cancel(id: string): boolean {
    const job = this.jobs.get(id);
    if (!job || (job.status !== "queued" && job.status !== "running")) return false;
    if (job.status === "queued") this.waiting.splice(this.waiting.indexOf(job), 1);
    else {
      job.stop?.();
      this.free(job);
    }
    this.finish(job, "cancelled", null, "cancelled");
    this.pump();
    return true;
  }

  /** A submitter no longer wants the answer (its client went away): the job is cancelled once nobody does. */
  release(id: string): void {
    const job = this.jobs.get(id);
    if (!job || (job.status !== "queued" && job.status !== "running")) return;
    job.holders = Math.max(0, job.holders - 1);
    if (job.holders === 0) this.cancel(id);
  }

  /** Resolve once the job has finished (done, failed or cancelled). */
  wait(id: string): Promise<JobView> {
    const job = this.jobs.get(id);
    if (!job) return Promise.reject(new AppError("NOT_FOUND", `no preview job ${id}`));
    if (job.finishedAt !== null) return Promise.resolve(this.view(job));
    return new Promise((resolve) => job.waiters.push({ resolve }));
  }

  /** The error a failed job ended with, as the AppError its caller should see. */
  errorOf(id: string): AppError | null {
    const job = this.jobs.get(id);
    if (!job || job.status !== "failed") return null;
    return new AppError(job.errorCode ?? "INTERNAL", job.error ?? "preview failed");
  }

  private newJob(request: PreparedPreview, task?: ThreadTask): Job;
  private newJob(request: null, task: ThreadTask): Job;
  private newJob(request: PreparedPreview | null, task: ThreadTask | null = null): Job {
    const job: Job = {
      id: `p${++this.seq}-${this.now().toString(36)}`,
      key: task ? taskKey(task) : keyOf(request!),
      request: request!,
      task,
      taskResult: undefined,
      status: "queued",
      progress: 0,
      result: null,
      error: null,
      errorCode: null,
      finishedAt: null,
      stop: null,
      helper: false,
      owner: "",
      holders: 1,
      waiters: [],
    };
    this.jobs.set(job.id, job);
    return job;
  }

  private pump(): void {
    while (this.threads < MAX_RUNNING && this.waiting.length) {
      const job = this.waiting.shift()!;
      job.status = "running";
      this.threads++;
      if (job.task) {
        this.startTask(job, job.task);
        continue;
      }
      job.helper = this.runner.helpers === true && this.threads < MAX_RUNNING && this.waiting.length === 0;
      if (job.helper) this.threads++;
      const progress = (share: number) => {
        if (job.status === "running") job.progress = Math.max(job.progress, Math.min(0.99, share));
      };
      const helperDone = () => {
        if (!job.helper) return;
        job.helper = false;
        this.threads--;
        queueMicrotask(() => this.pump());
      };
      const { done, stop } = this.runner(job.request, progress, { helper: job.helper, helperDone });
      job.stop = stop;
      done.then(
        (result) => {
          if (job.status !== "running") return;
          this.free(job);
          // On SQLite the row is written before keep() returns; a result not kept is only computed again when asked.
          this.keep(job.request, result).catch(() => undefined);
          this.finish(job, "done", result, null);
          this.pump();
        },
        (err: unknown) => {
          if (job.status !== "running") return;
          this.free(job);
          job.errorCode = err instanceof AppError ? err.code : "INTERNAL";
          this.finish(job, "failed", null, err instanceof Error ? err.message : String(err));
          this.pump();
        },
      );
    }
  }

  /** Start a task job on its slot (inline when the runner runs no tasks). */
  private startTask(job: Job, task: ThreadTask): void {
    const { done, stop } = this.runner.task ? this.runner.task(task) : inlineTask(this.store, task);
    job.stop = stop;
    done.then(
      (result) => {
        if (job.status !== "running") return;
        this.free(job);
        job.taskResult = result;
        this.finish(job, "done", null, null);
        this.pump();
      },
      (err: unknown) => {
        if (job.status !== "running") return;
        this.free(job);
        job.errorCode = err instanceof AppError ? err.code : "INTERNAL";
        this.finish(job, "failed", null, err instanceof Error ? err.message : String(err));
        this.pump();
      },
    );
  }

  /** A running job ends: its slot and its helper's, if it still holds one. */
  private free(job: Job): void {
    this.threads -= job.helper ? 2 : 1;
    job.helper = false;
  }

  /** Slots taken by running jobs and their helpers (at most MAX_RUNNING). */
  get threadsInUse(): number {
    return this.threads;
  }

  /** Keep a finished result in the store (asking again answers from it). */
  private async keep(p: PreparedPreview, result: PreviewResult): Promise<void> {
    await insertPreview(this.store, {
      kind: p.kind,
      contentHash: p.contentHash,
      windowFrom: p.from,
      windowTo: p.to,
      clusterKey: p.clusterKey,
      computedAt: this.now(),
      hitRate: result.candidate.hit_rate,
      ttftP50Ms: result.candidate.ttft_p50_ms,
      ttftP95Ms: result.candidate.ttft_p95_ms,
      result: JSON.stringify(result),
    });
  }

  private finish(job: Job, status: JobStatus, result: PreviewResult | null, error: string | null): void {
    job.status = status;
    job.result = result;
    job.error = error;
    job.progress = status === "done" ? 1 : job.progress;
    job.finishedAt = this.now();
    job.stop = null;
    for (const w of job.waiters.splice(0)) w.resolve(this.view(job));
  }

  private view(job: Job): JobView {
    return {
      id: job.id,
      status: job.status,
      place: job.status === "queued" ? this.waiting.indexOf(job) + 1 : null,
      progress: job.progress,
      result: job.result,
      error: job.error,
    };
  }

  /**
   * Drop finished jobs older than KEEP_FINISHED_MS, then the oldest finished ones past PREVIEW_KEPT_JOBS (queued and
   * running jobs are bounded by MAX_WAITING and MAX_RUNNING). Runs at every submit and every read of a job.
   */
  private prune(): void {
    const cutoff = this.now() - KEEP_FINISHED_MS;
    for (const [id, j] of this.jobs) if (j.finishedAt !== null && j.finishedAt < cutoff) this.jobs.delete(id);
    let over = this.jobs.size - PREVIEW_KEPT_JOBS;
    for (const [id, j] of this.jobs) {
      if (over <= 0) break;
      if (j.finishedAt === null) continue;
      this.jobs.delete(id);
      over--;
    }
  }
}
