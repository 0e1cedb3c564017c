import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { WriteGate } from "./write-gate";

const serving = (buffer: SharedArrayBuffer) => Atomics.load(new Int32Array(buffer), 0);

/** Another thread that has turn 0 and, after holdMs (never when negative), passes it as WriteGate does. */
function turnElsewhere(buffer: SharedArrayBuffer, holdMs: number): Promise<Worker> {
  const w = new Worker(
    `const { workerData, parentPort } = require("node:worker_threads");
     const cell = new Int32Array(workerData.buffer, 0, 1);
     parentPort.postMessage("ready");
     if (workerData.holdMs >= 0) setTimeout(() => { Atomics.store(cell, 0, 1); Atomics.notify(cell, 0); }, workerData.holdMs);`,
    { eval: true, workerData: { buffer, holdMs } },
  );
  return new Promise((resolve) => w.once("message", () => resolve(w)));
}

describe("WriteGate", () => {
  it("runs each turn in ticket order and passes it on, also when the write throws", () => {
    const buffer = new SharedArrayBuffer(4);
    const gate = new WriteGate(buffer);
    expect(gate.run(0, () => 42)).toBe(42);
    expect(serving(buffer)).toBe(1);
    expect(() =>
      gate.run(1, () => {
        throw new Error("rolled back");
      }),
    ).toThrow("rolled back");
    expect(serving(buffer)).toBe(2);
  });

  it("waits for the earlier turn held by another thread, and goes on as soon as it is passed", async () => {
    const buffer = new SharedArrayBuffer(4);
    const w = await turnElsewhere(buffer, 150);
    const gate = new WriteGate(buffer, 10_000);
    const t = performance.now();
    let during = -1;
    gate.run(1, () => {
      during = serving(buffer);
    });
    const waited = performance.now() - t;
    await w.terminate();
    expect(during).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(100);
    expect(waited).toBeLessThan(5_000);
    expect(serving(buffer)).toBe(2);
  });

  it("goes ahead after maxWaitMs when an earlier turn is never passed (SQLite still orders the writes)", async () => {
    const buffer = new SharedArrayBuffer(4);
    const w = await turnElsewhere(buffer, -1);
    const gate = new WriteGate(buffer, 100);
    const t = performance.now();
    expect(gate.run(1, () => "stored")).toBe("stored");
    const waited = performance.now() - t;
    await w.terminate();
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(serving(buffer)).toBe(2);
  });

  it("a late turn runs at once and never moves the counter back", () => {
    const buffer = new SharedArrayBuffer(4);
    Atomics.store(new Int32Array(buffer), 0, 5);
    const gate = new WriteGate(buffer, 10_000);
    const t = performance.now();
    expect(gate.run(2, () => "late")).toBe("late");
    expect(performance.now() - t).toBeLessThan(1_000);
    expect(serving(buffer)).toBe(5);
  });

  it("hands the news that a writer died to exactly one later turn (and a 4-byte gate has no such flag)", () => {
    const buffer = new SharedArrayBuffer(8);
    const a = new WriteGate(buffer);
    const b = new WriteGate(buffer);
    expect(a.takeWriterDied()).toBe(false);
    WriteGate.writerDied(buffer);
    expect([b.run(0, () => b.takeWriterDied()), a.run(1, () => a.takeWriterDied())]).toEqual([true, false]);
    const small = new SharedArrayBuffer(4);
    WriteGate.writerDied(small);
    expect(new WriteGate(small).takeWriterDied()).toBe(false);
  });
});
