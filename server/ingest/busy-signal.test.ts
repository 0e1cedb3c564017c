import { describe, expect, it } from "vitest";
import { BUSY_SIGNAL_BYTES, BusySignal, DEFAULT_QUIET_MS, ingestBusySignal } from "./busy-signal";

type Step = ["begin" | "end", number];

describe("BusySignal", () => {
  const cases: { name: string; steps: Step[]; at: number; inFlight: number; busy: boolean }[] = [
    { name: "never used", steps: [], at: 1_000, inFlight: 0, busy: false },
    { name: "a body in flight", steps: [["begin", 1_000]], at: 60_000, inFlight: 1, busy: true },
    {
      name: "just ended",
      steps: [
        ["begin", 1_000],
        ["end", 1_100],
      ],
      at: 1_100 + DEFAULT_QUIET_MS - 1,
      inFlight: 0,
      busy: true,
    },
    {
      name: "quiet long enough",
      steps: [
        ["begin", 1_000],
        ["end", 1_100],
      ],
      at: 1_100 + DEFAULT_QUIET_MS,
      inFlight: 0,
      busy: false,
    },
    {
      name: "two in flight, one ended",
      steps: [
        ["begin", 1_000],
        ["begin", 1_001],
        ["end", 1_002],
      ],
      at: 90_000,
      inFlight: 1,
      busy: true,
    },
    {
      name: "end without begin stays at zero",
      steps: [
        ["end", 1_000],
        ["end", 1_001],
      ],
      at: 5_000,
      inFlight: 0,
      busy: false,
    },
    {
      name: "an earlier clock never moves the time back",
      steps: [
        ["begin", 2_000],
        ["end", 1_000],
      ],
      at: 2_000 + DEFAULT_QUIET_MS - 1,
      inFlight: 0,
      busy: true,
    },
    {
      name: "a bad clock is ignored",
      steps: [
        ["begin", Number.NaN],
        ["end", -5],
      ],
      at: 10,
      inFlight: 0,
      busy: false,
    },
  ];
  it.each(cases)("$name", ({ steps, at, inFlight, busy }) => {
    const s = new BusySignal();
    for (const [op, t] of steps) s[op](t);
    expect(s.inFlight()).toBe(inFlight);
    expect(s.busy(at)).toBe(busy);
  });

  it("is read through the same memory by another wrapper (as a worker thread does)", () => {
    const a = new BusySignal();
    const b = new BusySignal(a.buffer);
    a.begin(5_000);
    expect(b.inFlight()).toBe(1);
    expect(b.lastActive()).toBe(5_000);
    b.end(6_000);
    expect(a.inFlight()).toBe(0);
    expect(a.busy(6_000 + DEFAULT_QUIET_MS)).toBe(false);
  });

  it.each([
    ["a too small buffer", () => new SharedArrayBuffer(BUSY_SIGNAL_BYTES - 1)],
    ["a plain ArrayBuffer", () => new ArrayBuffer(BUSY_SIGNAL_BYTES) as unknown as SharedArrayBuffer],
  ])("refuses %s", (_name, make) => {
    expect(() => new BusySignal(make())).toThrow(/SharedArrayBuffer/);
  });

  it("is one per process", () => {
    expect(ingestBusySignal()).toBe(ingestBusySignal());
  });
});
