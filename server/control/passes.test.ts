import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "../observability/logger";
import { startPasses } from "./passes";

describe("startPasses", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("runs a pass now and then intervalMs after each ends; a failing pass is logged and the next runs on time; stop ends it", async () => {
    vi.useFakeTimers();
    const error = vi.spyOn(log(), "error").mockImplementation(() => {});
    const runs: number[] = [];
    const stop = startPasses(
      "demo",
      async () => {
        runs.push(Date.now());
        if (runs.length === 2) throw new Error("store gone");
        await new Promise((resolve) => setTimeout(resolve, 50));
      },
      1_000,
    );
    const t0 = runs[0]!;
    await vi.advanceTimersByTimeAsync(3_200);
    expect(runs.map((t) => t - t0)).toEqual([0, 1_050, 2_050, 3_100]);
    expect(error.mock.calls.map((c) => c[1])).toEqual(["demo pass failed"]);
    void stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toHaveLength(4);
  });

  it("stop resolves only once the pass in flight has finished, and no pass starts after it", async () => {
    const events: string[] = [];
    let finish!: () => void;
    let passes = 0;
    const stop = startPasses(
      "demo",
      async () => {
        passes += 1;
        events.push("pass started");
        await new Promise<void>((resolve) => (finish = resolve));
        events.push("pass finished");
      },
      1,
    );
    const stopped = stop().then(() => events.push("stopped"));
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual(["pass started"]);
    finish();
    await stopped;
    expect(events).toEqual(["pass started", "pass finished", "stopped"]);
    await new Promise((r) => setTimeout(r, 20));
    expect(passes).toBe(1);
  });
});
