// bench:storage's dashboard processes: one spawned on a free port until healthy, and the CPU it (and PostgreSQL's
// processes beside it) used (Linux /proc; null elsewhere).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { freePort } from "../lib/free-port";
import { waitForHealth } from "./wait-for-health";

export const TOKEN = "bench-storage-token-0123456789abcdef";

export function exited(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

/** CPU seconds a process has used, all its threads (Linux /proc; null elsewhere). */
export function processCpu(pid: number): number | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime in clock ticks (USER_HZ, 100 on Linux)
  } catch {
    return null;
  }
}

/** CPU seconds used so far by every process named postgres on this machine (the server's backends; Linux; null elsewhere). */
export function postgresCpu(): number | null {
  try {
    let total = 0;
    for (const pid of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        if (!stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).startsWith("postgres")) continue;
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        total += (Number(f[11]) + Number(f[12])) / 100;
      } catch {
        // The process ended meanwhile.
      }
    }
    return total;
  } catch {
    return null;
  }
}

/** Spawn a dashboard process (server/main.ts) with `env` on a free port; resolves once it is healthy. */
export async function startDashboard(
  env: Record<string, string>,
  cpuProf: string | null,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const profile = cpuProf ? ["--cpu-prof", "--cpu-prof-dir", cpuProf] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", "server/main.ts"], {
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
