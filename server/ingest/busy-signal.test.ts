import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { BUSY_SIGNAL_BYTES, BusySignal } from "./busy-signal";

describe("BusySignal", () => {
  it.each([
    ["idle", [], 0],
    ["one body in flight", ["start"], 1],
    ["two started, one finished", ["start", "start", "finish"], 1],
    ["all finished", ["start", "start", "finish", "finish"], 0],
    ["a finish without its start stays at 0", ["finish", "start"], 1],
  ] as const)("%s", (_, ops, inFlight) => {
    const s = new BusySignal();
    for (const op of ops) {
      if (op === "start") s.started();
      else s.finished();
    }
    expect(s.inFlight()).toBe(inFlight);
  });

  it("refuses a buffer too small", () => {
    expect(() => new BusySignal(new SharedArrayBuffer(BUSY_SIGNAL_BYTES - 1))).toThrow(RangeError);
  });

  it("does not pause while ingest is idle, and pauses at most maxMs while it stays busy", () => {
    const s = new BusySignal();
    expect(s.pause(50)).toBe(0);
    s.started();
    const slept = s.pause(30);
    expect(slept).toBeGreaterThanOrEqual(29);
    expect(slept).toBeLessThan(1_000);
  });

  it("wakes the moment the last body in flight finished (another thread finishing it)", async () => {
    const s = new BusySignal();
    s.started();
    const w = new Worker(
      `const { workerData } = require("node:worker_threads");
       const a = new Int32Array(workerData);
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
       Atomics.sub(a, 0, 1);
       Atomics.notify(a, 0);`,
      { eval: true, workerData: s.buffer },
    );
    const slept = s.pause(20_000);
    await w.terminate();
    expect(s.inFlight()).toBe(0);
    expect(slept).toBeLessThan(10_000);
  });

  it("readers on another thread see the same counter", () => {
    const s = new BusySignal();
    const reader = new BusySignal(s.buffer);
    s.started();
    s.started();
    expect(reader.inFlight()).toBe(2);
  });
});
