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
