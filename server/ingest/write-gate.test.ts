import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { WriteGate } from "./write-gate";

// Another thread holds the gate word for holdMs, then releases it as WriteGate does (store 0, notify).
function holdElsewhere(buffer: SharedArrayBuffer, holdMs: number): Promise<Worker> {
  const w = new Worker(
    `const { workerData, parentPort } = require("node:worker_threads");
     const cell = new Int32Array(workerData.buffer, 0, 1);
     Atomics.store(cell, 0, 1);
     parentPort.postMessage("held");
     if (workerData.holdMs >= 0) setTimeout(() => { Atomics.store(cell, 0, 0); Atomics.notify(cell, 0, 1); }, workerData.holdMs);`,
    { eval: true, workerData: { buffer, holdMs } },
  );
  return new Promise((resolve) => w.once("message", () => resolve(w)));
}

describe("WriteGate", () => {
  it("runs fn, returns its value and leaves the gate free, also when fn throws", () => {
    const buffer = new SharedArrayBuffer(4);
    const gate = new WriteGate(buffer);
    expect(gate.run(() => 42)).toBe(42);
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(0);
    expect(() =>
      gate.run(() => {
        throw new Error("rolled back");
      }),
    ).toThrow("rolled back");
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(0);
  });

  it("waits while another thread holds the gate and goes on as soon as it is released", async () => {
    const buffer = new SharedArrayBuffer(4);
    const w = await holdElsewhere(buffer, 150);
    const gate = new WriteGate(buffer, 10_000);
    const t = performance.now();
    let inside = -1;
    gate.run(() => {
      inside = Atomics.load(new Int32Array(buffer), 0);
    });
    const waited = performance.now() - t;
    await w.terminate();
    expect(inside).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(100);
    expect(waited).toBeLessThan(5_000);
  });

  it("goes ahead after maxWaitMs when the holder never releases (SQLite still orders the writes)", async () => {
    const buffer = new SharedArrayBuffer(4);
    const w = await holdElsewhere(buffer, -1);
    const gate = new WriteGate(buffer, 100);
    const t = performance.now();
    expect(gate.run(() => "stored")).toBe("stored");
    const waited = performance.now() - t;
    await w.terminate();
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(Atomics.load(new Int32Array(buffer), 0)).toBe(1);
  });
});
