import type { ChildProcess } from "node:child_process";
import fs from "node:fs";

/**
 * Stop `child` and remove its folder `dir`: SIGTERM, wait until it has exited (SIGKILL after `graceMs`), then remove.
 * A program that writes its state as it shuts down (Alertmanager's snapshots under its storage path) is otherwise still
 * writing into the folder while it is removed, and the removal fails with ENOTEMPTY (a unit suite failed that way).
 */
export async function stopAndRemove(child: ChildProcess | null, dir: string, graceMs = 10_000): Promise<void> {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
