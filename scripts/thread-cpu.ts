// CPU time of a process's threads by role, for bench:storage: which of the dashboard's threads used the cores while
// it ingested (Linux /proc; nothing elsewhere).
import fs from "node:fs";

/**
 * A /proc stat file (a process's or a thread's): its name, CPU seconds (utime + stime, in clock ticks of 1/100 s) and
 * nice value; null when it cannot be read (not Linux, or the process ended). The name may hold spaces and brackets, so
 * the fields are read after its last ")".
 */
export function procStat(file: string): { name: string; cpu: number; nice: number } | null {
  try {
    const stat = fs.readFileSync(file, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    return { name, cpu: (Number(f[11]) + Number(f[12])) / 100, nice: Number(f[16]) };
  } catch {
    return null;
  }
}

/** CPU seconds of each thread of a process, with its name and nice value (Linux /proc; empty elsewhere). */
export function threadCpu(pid: number): Map<number, { cpu: number; name: string; nice: number }> {
  const out = new Map<number, { cpu: number; name: string; nice: number }>();
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      // Null when the thread ended between the listing and the read.
      const t = procStat(`/proc/${pid}/task/${tid}/stat`);
      if (t) out.set(Number(tid), t);
    }
  } catch {}
  return out;
}

/**
 * The dashboard's CPU between two threadCpu snapshots by role: the main thread, the ingest workers and the checkpoint
 * thread (they name themselves), threads at a lowered priority (the attribution job), and everything else by its name
 * (Node's own threads, V8's garbage collector among them, are all "node"). Roles under 0.05 s are left out.
 */
export function cpuByRole(pid: number, a: ReturnType<typeof threadCpu>, b: ReturnType<typeof threadCpu>): string {
  const roles = new Map<string, number>();
  for (const [tid, t] of b) {
    const role =
      tid === pid
        ? "main"
        : t.name === "sy-ingest"
          ? "ingest workers"
          : t.name === "sy-pg-ingest"
            ? "PostgreSQL ingest threads"
            : t.name === "sy-checkpoint"
              ? "checkpoint"
              : t.nice > 0
                ? `lowered priority (attribution, nice ${t.nice})`
                : `other (${t.name})`;
    roles.set(role, (roles.get(role) ?? 0) + t.cpu - (a.get(tid)?.cpu ?? 0));
  }
  return [...roles]
    .filter(([, cpu]) => cpu >= 0.05)
    .sort((x, y) => y[1] - x[1])
    .map(([role, cpu]) => `${role} ${cpu.toFixed(1)} s`)
    .join(", ");
}
