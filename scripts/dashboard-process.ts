// bench:storage's dashboard processes: one spawned on a free port until healthy, and the CPU it (and PostgreSQL's
// processes beside it) used (Linux /proc; null elsewhere).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { freePort } from "../lib/free-port";
import { procStat } from "./thread-cpu";
import { waitForHealth } from "./wait-for-health";
import { nodeArgs } from "../server/compiled";

export const TOKEN = "bench-storage-token-0123456789abcdef";

export function exited(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

/** CPU seconds a process has used, all its threads (Linux /proc; null elsewhere). */
export function processCpu(pid: number): number | null {
  return procStat(`/proc/${pid}/stat`)?.cpu ?? null;
}

/** CPU seconds used so far by every process named postgres on this machine (the server's backends; Linux; null elsewhere). */
export function postgresCpu(): number | null {
  let pids: string[];
  try {
    pids = fs.readdirSync("/proc");
  } catch {
    return null;
  }
  let total = 0;
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    // Null when the process ended meanwhile.
    const p = procStat(`/proc/${pid}/stat`);
    if (p?.name.startsWith("postgres")) total += p.cpu;
  }
  return total;
}

/** Spawn a dashboard process (server/main.ts) with `env` on a free port; resolves once it is healthy. */
export async function startDashboard(
  env: Record<string, string>,
  cpuProf: string | null,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const profile = cpuProf ? ["--cpu-prof", "--cpu-prof-dir", cpuProf] : [];
  const child = spawn(process.execPath, [...profile, ...nodeArgs("dashboard")], {
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      SWITCHYARD_INGEST_TOKEN: TOKEN,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://localhost:${port}`;
  if (!(await waitForHealth(`${url}/api/health`, 120_000))) {
    child.kill("SIGKILL");
    throw new Error("dashboard did not become healthy");
  }
  return { child, url };
}
