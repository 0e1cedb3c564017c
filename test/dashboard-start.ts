import { spawn } from "node:child_process";
import { nodeArgs } from "../server/compiled";

/** Start the dashboard process (server/main.ts) with extra settings and wait for it to exit: its code and output lines. */
export function runDashboardToExit(
  settings: Record<string, string>,
  timeoutMs = 60_000,
): Promise<{ code: number | null; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs("dashboard"), {
      env: { ...process.env, NODE_ENV: "production", SWITCHYARD_LOG_LEVEL: "info", ...settings },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    child.stdout.on("data", (c: Buffer) => (text += c.toString()));
    child.stderr.on("data", (c: Buffer) => (text += c.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`dashboard still running after ${timeoutMs} ms: ${text}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, lines: text.split("\n").filter((l) => l.trim() !== "") });
    });
  });
}
