import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const execFileP = promisify(execFile);

// The thread's module: a small live set and much short-lived garbage (strings of 512 KB), counting the full
// collections V8 runs meanwhile; then it says how many.
const CHURN = `
import { parentPort } from "node:worker_threads";
import { PerformanceObserver, constants } from "node:perf_hooks";
let full = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
}).observe({ entryTypes: ["gc"] });
const kept = [];
for (let i = 0; i < 800; i++) {
  const s = Buffer.alloc(512 * 1024, 97 + (i % 3)).toString("latin1");
  if (i % 40 === 0) kept.push(s.slice(0, 16));
  await new Promise((r) => setImmediate(r));
}
await new Promise((r) => setTimeout(r, 50));
parentPort.postMessage(full);
`;

describe("spawnWorker", () => {
  it("gives one thread a heap floor (no full collection below it) and the threads started after it none", async () => {
    // In a child process: the floor is a process-wide V8 flag while a thread starts.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-floor-"));
    try {
      const churn = path.join(dir, "churn.mjs");
      fs.writeFileSync(churn, CHURN);
      const code = `
        const loaded = await import("./server/spawn-worker.ts");
        const { spawnWorker } = loaded.spawnWorker ? loaded : loaded.default;
        const limits = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 48 };
        const out = [];
        for (const floor of [0, 64, 0]) {
          const w = spawnWorker(${JSON.stringify(churn)}, { resourceLimits: limits, workerData: { x: 1 }, execArgv: [] }, floor);
          out.push(await new Promise((resolve, reject) => w.once("message", resolve).once("error", reject)));
        }
        console.log(JSON.stringify(out));`;
      const { stdout } = await execFileP(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
        cwd: process.cwd(),
        timeout: 60_000,
      });
      const [before, floored, after] = JSON.parse(stdout.trim().split("\n").pop()!) as number[];
      // 400 MB of garbage: with V8's own limits it collects fully every few dozen MB; with the floor of 64 MB the
      // old generation never gets there (the strings die young), and the thread started next has no floor again.
      expect(before).toBeGreaterThanOrEqual(4);
      expect(floored).toBeLessThanOrEqual(1);
      expect(after).toBeGreaterThanOrEqual(4);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it("starts a thread that fails to load as one that fails: an error event, then exit", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-floor-"));
    try {
      const bad = path.join(dir, "bad.mjs");
      fs.writeFileSync(bad, `throw new Error("cannot load");`);
      const code = `
        const loaded = await import("./server/spawn-worker.ts");
        const { spawnWorker } = loaded.spawnWorker ? loaded : loaded.default;
        const w = spawnWorker(${JSON.stringify(bad)}, { execArgv: [] }, 64);
        const [err, exit] = await Promise.all([
          new Promise((resolve) => w.once("error", resolve)),
          new Promise((resolve) => w.once("exit", resolve)),
        ]);
        console.log(JSON.stringify({ message: err.message, exit }));`;
      const { stdout } = await execFileP(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
        cwd: process.cwd(),
        timeout: 60_000,
      });
      expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ message: "cannot load", exit: 1 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
