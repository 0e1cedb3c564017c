import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { napAfter, pacedNaps, sleepWhile } from "./thread-priority";

// A worker thread lowers its own priority through the module; the process's main thread keeps its own.
const MODULE = path.join(import.meta.dirname, "thread-priority.ts");
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const os = require("node:os");
const { lowerThreadPriority, nameThread } = require("tsx/cjs/api").require(workerData.module, workerData.module);
const lowered = lowerThreadPriority(workerData.nice);
const named = workerData.name ? nameThread(workerData.name) : false;
const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
const comm = fs.readFileSync("/proc/thread-self/comm", "utf8").trim();
parentPort.postMessage({ lowered, tid, nice: os.getPriority(tid), named, comm });
`;

type Seen = { lowered: boolean; tid: number; nice: number; named: boolean; comm: string };

async function inWorker(nice: number, name?: string): Promise<Seen> {
  const w = new Worker(WORKER, { eval: true, workerData: { module: MODULE, nice, name } });
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

describe.runIf(fs.existsSync("/proc/thread-self"))("nameThread", () => {
  const main = () => fs.readFileSync("/proc/thread-self/comm", "utf8").trim();

  it.each([
    ["a short name", "sy-ingest", "sy-ingest"],
    ["a name over 15 bytes, cut", "switchyard-ingest-worker", "switchyard-inge"],
  ])("names the calling thread only: %s", async (_case, name, want) => {
    const before = main();
    const seen = await inWorker(os.getPriority(0), name);
    expect(seen).toMatchObject({ named: true, comm: want });
    expect(main()).toBe(before);
  });
});

describe("sleepWhile (the attribution thread's pause while ingest is busy)", () => {
  it.each([
    ["never busy: no sleep", () => false, 50, 0, 5],
    ["busy throughout: sleeps maxMs, not longer", () => true, 30, 29, 500],
    ["a negative bound sleeps not at all", () => true, -5, 0, 5],
  ])("%s", (_, busy, maxMs, atLeast, below) => {
    const slept = sleepWhile(busy, maxMs);
    expect(slept).toBeGreaterThanOrEqual(atLeast);
    expect(slept).toBeLessThan(below);
  });

  it("stops napping once ingest is no longer busy", () => {
    const end = performance.now() + 20;
    const slept = sleepWhile(() => performance.now() < end, 10_000);
    expect(slept).toBeGreaterThanOrEqual(19);
    expect(slept).toBeLessThan(2_000);
  });
});

describe("napAfter / pacedNaps (attribution's naps scale with its own work while ingest is busy)", () => {
  const pace = { ratio: 4, minMs: 10, maxMs: 500 };
  it.each([
    ["no work yet: the floor", 0, 10],
    ["a little work: still the floor", 1, 10],
    ["25 ms of work: four times it", 25, 100],
    ["a long step: the ceiling", 400, 500],
    ["a clock that went back counts as no work", -50, 10],
  ])("%s", (_, worked, nap) => {
    expect(napAfter(worked, pace)).toBe(nap);
  });

  it("naps for ratio times the time since the previous call while busy, and not at all when idle", () => {
    let t = 1_000;
    let busy = true;
    const slept: number[] = [];
    // A fake clock for the work measured between calls; the nap itself is real (sleepWhile), so bounds are loose.
    const between = pacedNaps(
      () => busy,
      { ratio: 2, minMs: 0, maxMs: 1_000 },
      () => t,
    );
    t += 15; // 15 ms of work → at most 30 ms of nap
    slept.push(between());
    busy = false;
    t += 200;
    slept.push(between());
    expect(slept[0]).toBeGreaterThanOrEqual(29);
    expect(slept[0]).toBeLessThan(1_000);
    expect(slept[1]).toBeLessThan(5);
  });
});
