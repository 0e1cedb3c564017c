import { execFile } from "node:child_process";
import { promisify } from "node:util";
import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it, vi } from "vitest";
import { isOutOfMemory, leastBusy, Restarts, threadStoppedError } from "./threads";
import { toHttpError } from "./errors";
import { errorResponse } from "./http";
import { judge, startHeapGuard } from "./observability/heap-guard";
import { threadHeaps } from "./observability/thread-memory";

const execFileP = promisify(execFile);

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

  it("stops the process after two full collections leave more than its limit", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    let stops = 0;
    const stop = startHeapGuard(1, () => stops++);
    try {
      gc();
      await new Promise((r) => setTimeout(r, 50));
      expect(stops).toBe(0);
      gc();
      await new Promise((r) => setTimeout(r, 50));
      expect(stops).toBe(1);
      gc();
      await new Promise((r) => setTimeout(r, 50));
      expect(stops).toBe(1);
    } finally {
      stop();
    }
  });

  it("stops on the second full collection in a row that leaves the live heap over the limit, or the second sample over twice it", () => {
    const MB = 1024 * 1024;
    type R = { live: number } | { used: number };
    // Readings in order, and whether the process stops at the last one.
    const cases: { readings: R[]; stop: boolean }[] = [
      { readings: [{ live: 100 * MB }], stop: false },
      { readings: [{ live: 257 * MB }], stop: false },
      { readings: [{ live: 257 * MB }, { live: 300 * MB }], stop: true },
      // Samples between the collections do not reset a live heap over the limit: a leak stops the process.
      { readings: [{ live: 257 * MB }, { used: 300 * MB }, { used: 310 * MB }, { live: 300 * MB }], stop: true },
      { readings: [{ live: 257 * MB }, { live: 256 * MB }, { live: 257 * MB }], stop: false },
      // Garbage between collections (a large trace, small semi-spaces) is not a leak...
      { readings: [{ used: 335 * MB }, { used: 400 * MB }, { live: 90 * MB }], stop: false },
      // ...until the heap used stays over twice the limit without a full collection.
      { readings: [{ used: 513 * MB }, { used: 520 * MB }], stop: true },
      { readings: [{ used: 513 * MB }, { used: 500 * MB }, { used: 520 * MB }], stop: false },
    ];
    for (const c of cases) {
      let s = { liveOver: 0, usedOver: 0 };
      let stop = false;
      for (const r of c.readings) ({ stop, ...s } = judge(s, r, 256));
      expect({ readings: c.readings, stop }).toEqual({ readings: c.readings, stop: c.stop });
    }
  });
});

describe("young generations", () => {
  it("gives each thread its own young generation although the process runs with the main thread's flag", async () => {
    // A child process as the dashboard runs (its flag for the main thread), starting an ingest-like and an
    // attribution-like thread with their limits: each keeps a ring of live objects while allocating, so V8 grows its
    // young generation as far as its limit lets it; the largest new space each reached comes back.
    const churn = `
      const v8 = require("node:v8");
      const ring = new Array(200000);
      let max = 0;
      for (let i = 0; i < 4e6; i++) {
        ring[i % ring.length] = { a: i, b: [i, i + 1] };
        if (i % 50000 === 0) max = Math.max(max, v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size);
      }
      return max / 1048576;`;
    const code = `
      import { Worker } from "node:worker_threads";
      // tsx loads the module as CommonJS: its exports may come as the default export.
      const loaded = await import("./server/memory-budget.ts");
      const { threadLimits, threadsTakeOwnYoungLimits } = loaded.threadLimits ? loaded : loaded.default;
      const churn = ${JSON.stringify(churn)};
      const main = new Function("require", churn)((await import("node:module")).createRequire(import.meta.url));
      threadsTakeOwnYoungLimits();
      const out = { main };
      for (const kind of ["ingest", "attribution"]) {
        const w = new Worker(\`require("node:worker_threads").parentPort.postMessage((() => {\${churn}})())\`, {
          eval: true,
          execArgv: [],
          resourceLimits: threadLimits(kind),
        });
        out[kind] = await new Promise((resolve, reject) => w.once("message", resolve).once("error", reject));
      }
      console.log(JSON.stringify(out));`;
    const { stdout } = await execFileP(
      process.execPath,
      ["--max-semi-space-size=4", "--import", "tsx", "--input-type=module", "-e", code],
      { cwd: process.cwd(), timeout: 60_000 },
    );
    const mb = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, number>;
    // Two semi-spaces: 4 MB each for the main thread and attribution (limit 12), 16 MB each for ingest (limit 48).
    expect(mb.main).toBeLessThanOrEqual(8);
    expect(mb.attribution).toBeLessThanOrEqual(8);
    expect(mb.ingest).toBeGreaterThan(8);
    expect(mb.ingest).toBeLessThanOrEqual(32);
  }, 90_000);
});
