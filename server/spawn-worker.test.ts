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

/**
 * Run `code` (an ES module importing spawnWorker) in a child process, where V8's flags are its own, with `files`
 * written to a temporary folder first (`code` gets their paths); the last line it prints, parsed.
 */
async function inChild(
  files: Record<string, string>,
  code: (paths: Record<string, string>) => string,
): Promise<unknown> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-floor-"));
  try {
    const paths: Record<string, string> = {};
    for (const [name, text] of Object.entries(files)) fs.writeFileSync((paths[name] = path.join(dir, name)), text);
    const script = `
      const loaded = await import("./server/spawn-worker.ts");
      const { spawnWorker } = loaded.spawnWorker ? loaded : loaded.default;
      ${code(paths)}`;
    const { stdout } = await execFileP(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: process.cwd(),
      timeout: 60_000,
    });
    return JSON.parse(stdout.trim().split("\n").pop()!);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("spawnWorker", () => {
  it("gives one thread a heap floor (no full collection below it) and the threads started after it none", async () => {
    // In a child process: the floor is a process-wide V8 flag while a thread starts.
    const [before, floored, after] = (await inChild(
      { "churn.mjs": CHURN },
      (p) => `
        const limits = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 48 };
        const out = [];
        for (const floor of [0, 64, 0]) {
          const w = spawnWorker(${JSON.stringify(p["churn.mjs"])}, { resourceLimits: limits, workerData: { x: 1 }, execArgv: [] }, floor);
          out.push(await new Promise((resolve, reject) => w.once("message", resolve).once("error", reject)));
        }
        console.log(JSON.stringify(out));`,
    )) as number[];
    // 400 MB of garbage: with V8's own limits it collects fully every few dozen MB; with the floor of 64 MB the
    // old generation never gets there (the strings die young), and the thread started next has no floor again.
    expect(before).toBeGreaterThanOrEqual(4);
    expect(floored).toBeLessThanOrEqual(1);
    expect(after).toBeGreaterThanOrEqual(4);
  }, 90_000);

  it("starts a thread that fails to load as one that fails: an error event, then exit", async () => {
    const out = await inChild(
      { "bad.mjs": `throw new Error("cannot load");` },
      (p) => `
        const w = spawnWorker(${JSON.stringify(p["bad.mjs"])}, { execArgv: [] }, 64);
        const [err, exit] = await Promise.all([
          new Promise((resolve) => w.once("error", resolve)),
          new Promise((resolve) => w.once("exit", resolve)),
        ]);
        console.log(JSON.stringify({ message: err.message, exit }));`,
    );
    expect(out).toEqual({ message: "cannot load", exit: 1 });
  }, 90_000);
});
