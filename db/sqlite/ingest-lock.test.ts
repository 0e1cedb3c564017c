import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDb, type Db } from "./client";
import { minimal, parsed } from "../../test/events";
import { insertEvents } from "./ingest";

// insertEvents' lockWaitMs: a batch that finds the write lock held by another connection retries taking it.

let dir: string;
let file: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-ingest-lock-"));
  file = path.join(dir, "t.db");
  db = openDb(file, 0);
});

afterEach(() => {
  db.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const events = () => [parsed(minimal["worker.down"]({ id: "d1" }))];
const stored = () => db.$client.prepare("SELECT count(*) FROM worker_events").pluck().get();

/** Hold the write lock from another thread's connection for ms, then commit; resolves once it holds the lock. */
function holdLock(ms: number): Promise<Worker> {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const Database = require(workerData.driver);
    const c = new Database(workerData.file);
    c.exec("BEGIN IMMEDIATE");
    parentPort.postMessage("held");
    setTimeout(() => { c.exec("COMMIT"); c.close(); parentPort.postMessage("released"); }, workerData.ms);`;
  const worker = new Worker(code, { eval: true, workerData: { file, ms, driver: require.resolve("better-sqlite3") } });
  return new Promise((resolve) => worker.once("message", () => resolve(worker)));
}

describe("insertEvents with the write lock held elsewhere", () => {
  it("fails busy at once without lockWaitMs, and stores nothing", async () => {
    const worker = await holdLock(300);
    expect(() => insertEvents(db, events())).toThrow(/busy|locked/i);
    await new Promise((r) => worker.once("message", r));
    expect(stored()).toBe(0);
  });

  it("retries for lockWaitMs, then fails busy", async () => {
    const worker = await holdLock(1_000);
    const t = performance.now();
    expect(() => insertEvents(db, events(), { lockWaitMs: 100 })).toThrow(/busy|locked/i);
    expect(performance.now() - t).toBeGreaterThanOrEqual(100);
    await new Promise((r) => worker.once("message", r));
    expect(stored()).toBe(0);
  });

  it("takes the lock soon after its release and stores the batch once", async () => {
    await holdLock(150);
    const t = performance.now();
    expect(insertEvents(db, events(), { lockWaitMs: 5_000 })).toEqual(["accepted"]);
    const waited = performance.now() - t;
    expect(waited).toBeGreaterThanOrEqual(100);
    expect(waited).toBeLessThan(4_000);
    expect(stored()).toBe(1);
  });
});
