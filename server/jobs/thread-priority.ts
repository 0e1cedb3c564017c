import fs from "node:fs";
import os from "node:os";

/**
 * Lower the scheduling priority of the calling thread alone (Linux: setpriority on the thread's id, read from
 * /proc/thread-self), so background work yields the CPU to ingest and pages when both want it. No-op elsewhere.
 */
export function lowerThreadPriority(nice: number): boolean {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    os.setPriority(tid, Math.max(os.getPriority(tid), nice));
    return true;
  } catch {
    return false;
  }
}

/**
 * Name the calling thread (Linux: /proc/thread-self/comm, at most 15 bytes), so its CPU time can be told from the
 * process's other threads (bench:storage's CPU by thread, top -H). No-op elsewhere.
 */
export function nameThread(name: string): boolean {
  try {
    fs.writeFileSync("/proc/thread-self/comm", name.slice(0, 15));
    return true;
  } catch {
    return false;
  }
}

const nap = new Int32Array(new SharedArrayBuffer(4));

/**
 * Block the calling thread (a worker thread: never the dashboard's main thread) in 1 ms naps while `busy()` holds, at
 * most maxMs: background work yields to ingest, and still moves when ingest never rests. Returns the ms slept.
 */
export function sleepWhile(busy: () => boolean, maxMs: number): number {
  const start = performance.now();
  const until = start + Math.max(0, maxMs);
  while (performance.now() < until && busy()) Atomics.wait(nap, 0, 0, 1);
  return performance.now() - start;
}

/** How long background work naps before a transaction while ingest is busy: see pacedNaps. */
export type NapPace = { ratio: number; minMs: number; maxMs: number };

/** The longest nap after `workedMs` of work: ratio times it, within [minMs, maxMs]. */
export function napAfter(workedMs: number, { ratio, minMs, maxMs }: NapPace): number {
  return Math.min(maxMs, Math.max(minMs, Math.max(0, workedMs) * ratio));
}

/**
 * A `between` for background work: each call naps while `busy()` holds, at most napAfter(the time since the previous
 * call returned), so the work keeps at least 1 / (1 + ratio) of the time while ingest never rests and otherwise leaves
 * the cores to it. Returns the ms slept.
 */
export function pacedNaps(busy: () => boolean, pace: NapPace, now = () => performance.now()): () => number {
  let last = now();
  return () => {
    const slept = sleepWhile(busy, napAfter(now() - last, pace));
    last = now();
    return slept;
  };
}
