import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";

// A worker thread lowers its own priority through the module; the process's main thread keeps its own.
const MODULE = path.join(import.meta.dirname, "thread-priority.ts");
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const os = require("node:os");
const { lowerThreadPriority } = require("tsx/cjs/api").require(workerData.module, workerData.module);
const lowered = lowerThreadPriority(workerData.nice);
const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
parentPort.postMessage({ lowered, tid, nice: os.getPriority(tid) });
`;

async function inWorker(nice: number): Promise<{ lowered: boolean; tid: number; nice: number }> {
  const w = new Worker(WORKER, { eval: true, workerData: { module: MODULE, nice } });
  try {
    return await new Promise((resolve, reject) => {
      w.once("message", resolve);
      w.once("error", reject);
    });
  } finally {
    await w.terminate();
  }
}

describe.runIf(fs.existsSync("/proc/thread-self"))("lowerThreadPriority", () => {
  it("lowers the calling thread only, never raises it", async () => {
    const before = os.getPriority(0);
    const low = await inWorker(Math.min(19, before + 5));
    expect(low).toMatchObject({ lowered: true, nice: Math.min(19, before + 5) });
    expect(low.tid).not.toBe(process.pid);
    expect(os.getPriority(0)).toBe(before);
    expect((await inWorker(before - 1)).nice).toBe(before);
  });
});
