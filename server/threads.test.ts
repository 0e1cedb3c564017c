import { describe, expect, it, vi } from "vitest";
import { isOutOfMemory, leastBusy, Restarts, threadStoppedError } from "./threads";
import { toHttpError } from "./errors";
import { errorResponse } from "./http";
import { overLimit, startHeapGuard } from "./observability/heap-guard";
import { threadHeaps } from "./observability/thread-memory";

describe("thread restarts", () => {
  it("restarts at once, then backs off while a thread keeps stopping within 10 s of its restart", () => {
    vi.useFakeTimers();
    try {
      const r = new Restarts();
      const runs: number[] = [];
      // [time of the stop, delay expected before the restart]
      const cases: [number, number][] = [
        [0, 0],
        [1_000, 500],
        [2_000, 1_000],
        [4_000, 2_000],
        [7_000, 4_000],
        // Quiet for longer than 10 s after its last restart: at once again.
        [40_000, 0],
      ];
      for (const [at, delay] of cases) {
        vi.setSystemTime(at);
        let ran = false;
        r.schedule("ingest-1", () => (ran = true), at);
        expect(ran, `at ${at}`).toBe(delay === 0);
        vi.advanceTimersByTime(delay);
        expect(ran, `at ${at} after ${delay} ms`).toBe(true);
        runs.push(at);
      }
      // The delay never passes 30 s, and labels are counted apart.
      let t = 50_000;
      for (let i = 0; i < 12; i++) r.schedule("attribution", () => {}, (t += 100));
      let ran = false;
      r.schedule("attribution", () => (ran = true), (t += 100));
      vi.advanceTimersByTime(29_999);
      expect(ran).toBe(false);
      vi.advanceTimersByTime(1);
      expect(ran).toBe(true);
      expect(runs.length).toBe(cases.length);
    } finally {
      vi.useRealTimers();
    }
  });

  it("knows a thread's out-of-memory stop by its code", () => {
    const cases: [unknown, boolean][] = [
      [
        Object.assign(new Error("Worker terminated due to reaching memory limit"), {
          code: "ERR_WORKER_OUT_OF_MEMORY",
        }),
        true,
      ],
      [new Error("boom"), false],
      [null, false],
      ["ERR_WORKER_OUT_OF_MEMORY", false],
    ];
    for (const [err, oom] of cases) expect(isOutOfMemory(err)).toBe(oom);
  });

  it("answers a body held by a stopped thread 503 with Retry-After, saying nothing was stored", async () => {
    const err = threadStoppedError();
    expect(toHttpError(err)).toEqual({ status: 503, message: err.message, retryAfter: 2 });
    const res = errorResponse(err);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(((await res.json()) as { error: string }).error).toMatch(/nothing was stored, send it again/);
  });
});

describe("picking a thread for a body", () => {
  it("takes the least busy thread that is up, or none while every one is being restarted", () => {
    const a = { inFlight: 3 };
    const b = { inFlight: 1, down: true };
    const c = { inFlight: 2 };
    expect(leastBusy([a, b, c])).toBe(c);
    expect(leastBusy([{ ...a, down: true }, b])).toBeNull();
    expect(leastBusy([])).toBeNull();
  });
});

describe("the main thread's heap guard", () => {
  it("is the limit /metrics and the Sources page report for the main thread, not V8's own", () => {
    const stop = startHeapGuard(256, () => {});
    try {
      expect(threadHeaps()[0]).toMatchObject({ thread: "main", heapLimit: 256 * 1024 * 1024 });
    } finally {
      stop();
    }
  });

  it("stops only on the second sample in a row over the limit", () => {
    const MB = 1024 * 1024;
    const cases: { used: number; before: boolean; over: boolean; stop: boolean }[] = [
      { used: 100 * MB, before: false, over: false, stop: false },
      { used: 257 * MB, before: false, over: true, stop: false },
      { used: 257 * MB, before: true, over: true, stop: true },
      { used: 256 * MB, before: true, over: false, stop: false },
    ];
    for (const c of cases) expect(overLimit(c.used, 256, c.before)).toEqual({ over: c.over, stop: c.stop });
  });
});
