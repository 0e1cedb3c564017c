import type { ResourceLimits, Worker } from "node:worker_threads";
import { AppError } from "./errors";
import { THREAD_OLD_FLOOR_MB, threadLimits, threadsTakeOwnYoungLimits, type ThreadKind } from "./memory-budget";
import { log } from "./observability/logger";
import { metrics } from "./observability/metrics";
import { memorySlot, trackThread } from "./observability/thread-memory";
import { spawnWorker } from "./spawn-worker";
import { threadFile } from "./thread-file";
import { trimSoon } from "./observability/memory-trim";

export { threadFile };

// Starting and supervising worker threads: each has memory limits from server/memory-budget.ts and reports its heap.

/**
 * Start thread `kind` (labelled `label` in /metrics) with its memory limits (and old-generation floor) and a memory
 * slot the main thread reads.
 */
export function startThread(
  kind: ThreadKind,
  label: string,
  workerData: Record<string, unknown>,
  options: { previewMb?: number; limits?: ResourceLimits } = {},
): Worker {
  const slot = memorySlot();
  threadsTakeOwnYoungLimits();
  const worker = spawnWorker(
    threadFile(kind),
    {
      workerData: { ...workerData, memorySlot: slot },
      resourceLimits: { ...threadLimits(kind, options.previewMb), ...options.limits },
    },
    THREAD_OLD_FLOOR_MB[kind],
  );
  trackThread(label, worker, slot);
  // What it freed in the C heap stays resident among other threads' blocks until trimmed.
  worker.once("exit", () => trimSoon());
  return worker;
}

/** Retry-After (seconds) of a body whose thread stopped before answering: the sender resends it. */
export const RESTARTED_RETRY_AFTER_SECONDS = 2;

/** The error a body held by a thread that stopped is answered with: 503, try again, nothing was stored. */
export function threadStoppedError(): AppError {
  return new AppError(
    "UNAVAILABLE",
    "the ingest thread stopped before storing this batch; nothing was stored, send it again",
    { retry_after: RESTARTED_RETRY_AFTER_SECONDS },
  );
}

/** True for the error a thread stops with when it passes its heap limit. */
export function isOutOfMemory(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === "ERR_WORKER_OUT_OF_MEMORY";
}

/**
 * Log and count a thread that stopped by itself (reason: out_of_memory or crashed); `then` says what its owner does
 * (restarts it, or for a preview, reports the job stopped and starts a new thread for the next one).
 */
export function noteRestart(kind: ThreadKind, label: string, err: unknown, then = "restarting it"): void {
  const reason = isOutOfMemory(err) ? "out_of_memory" : "crashed";
  metrics().threadRestarts.inc({ thread: kind, reason });
  log().error(
    { thread: label, reason, err: err instanceof Error ? err.message : String(err) },
    `${label} thread stopped (${reason === "out_of_memory" ? "out of memory" : "crashed"}); ${then}`,
  );
}

/** A thread that stops again within this long of its restart waits twice as long before the next (up to 30 s). */
const QUICK_FAILURE_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Restarts of one owner's threads, by label: the first at once, then, while a thread keeps stopping within 10 s of
 * its restart, after 0.5 s, 1 s, 2 s … up to 30 s (a thread that cannot even load does not spin). One entry per label.
 */
export class Restarts {
  private last = new Map<string, { at: number; delay: number }>();

  schedule(label: string, restart: () => void, now = Date.now()): void {
    const prev = this.last.get(label);
    const delay =
      prev && now - prev.at < QUICK_FAILURE_MS ? Math.min(MAX_RESTART_DELAY_MS, Math.max(500, prev.delay * 2)) : 0;
    this.last.set(label, { at: now + delay, delay });
    if (delay === 0) restart();
    else setTimeout(restart, delay).unref();
  }
}

/** The thread with the fewest bodies in flight among those up (not being restarted); null when none is. */
export function leastBusy<T extends { inFlight: number; down?: boolean }>(slots: readonly T[]): T | null {
  let best: T | null = null;
  for (const s of slots) if (!s.down && (best === null || s.inFlight < best.inFlight)) best = s;
  return best;
}
