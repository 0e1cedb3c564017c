import fs from "node:fs";
import type { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { PRESSURE_RETENTION_CANDIDATE } from "../../test/preview-candidates";
import { sqliteStore } from "../../db/store/store";
import { forgetBaselines } from "./baseline-cache";
import { computePreview } from "./compute";
import { PreviewQueue } from "./queue";
import { preparePreview } from "./request";
import { noTime, recordedPressure, request, START, WINDOW } from "./test-support";
import { threadRunner } from "./thread-runner";
import type { PreviewResult } from "./types";

// Previews in real worker threads: with a helper thread the baseline replays there beside the candidate, and the
// answer is the one a preview on one thread gives; progress combines both runs; the helper is given back once done;
// stopping a helped job ends both threads.

let dir: string;
let file: string;
let db: Db;
let inline: PreviewResult;

beforeAll(async () => {
  ({ dir, file, db } = recordedPressure("switchyard-preview-threads-"));
  forgetBaselines();
  inline = await computePreview(db, request(PRESSURE_RETENTION_CANDIDATE));
}, 120_000);

afterAll(() => {
  db?.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const exited = (w: Worker) => new Promise<number>((resolve) => w.once("exit", resolve));

describe("preview thread runner", () => {
  it("answers the same with a helper thread as on one thread, its progress combining both runs", async () => {
    const threads: Worker[] = [];
    const run = threadRunner(file, { minHelpedTurns: 0, onThread: (w) => threads.push(w) });
    expect(run.helpers).toBe(true);
    const cases = [
      { name: "helped", helper: true, document: PRESSURE_RETENTION_CANDIDATE },
      // The second candidate on the window: its thread kept the baseline, so the helper is given back unused.
      { name: "helped, baseline kept", helper: true, document: { rules: [] } },
      { name: "one thread", helper: false, document: PRESSURE_RETENTION_CANDIDATE },
    ];
    const kept = await computePreview(db, request({ rules: [] }));
    for (const c of cases) {
      const shares: number[] = [];
      let helped = 0;
      const job = run(request(c.document), (s) => shares.push(s), { helper: c.helper, helperDone: () => helped++ });
      const result = await job.done;
      expect(noTime(result), c.name).toEqual(noTime(c.document === PRESSURE_RETENTION_CANDIDATE ? inline : kept));
      await expect.poll(() => helped, { timeout: 10_000 }).toBe(c.helper ? 1 : 0);
      expect(
        shares.every((s) => s >= 0 && s <= 1),
        c.name,
      ).toBe(true);
      expect(shares.at(-1), c.name).toBe(1);
    }
    // A job and its helper: two threads, both kept idle for the next jobs.
    expect(threads.length).toBe(2);
    for (const w of threads) void w.terminate();
  }, 180_000);

  it("reports a job whose thread passes its heap limit as stopped: out of memory", async () => {
    const threads: Worker[] = [];
    const run = threadRunner(file, { memoryMb: 12, onThread: (w) => threads.push(w) });
    const job = run(request(PRESSURE_RETENTION_CANDIDATE), () => {});
    await expect(job.done).rejects.toMatchObject({
      code: "UNPROCESSABLE",
      message: expect.stringMatching(/^stopped: out of memory \(the replay passed the preview's heap limit of 12 MB/),
    });
    expect(threads.length).toBe(1);
  }, 60_000);

  it("ends a thread left idle past its idle time, giving its memory back", async () => {
    const threads: Worker[] = [];
    const run = threadRunner(file, { idleMs: 200, onThread: (w) => threads.push(w) });
    await run(request(PRESSURE_RETENTION_CANDIDATE), () => {}).done;
    expect(threads.length).toBe(1);
    expect(await exited(threads[0]!)).toBe(1);
    // The next job starts a new thread.
    await run(request(PRESSURE_RETENTION_CANDIDATE), () => {}).done;
    expect(threads.length).toBe(2);
    void threads[1]!.terminate();
  }, 120_000);

  it("stops both threads of a helped job, and the next job runs on new ones", async () => {
    const threads: Worker[] = [];
    const run = threadRunner(file, { minHelpedTurns: 0, onThread: (w) => threads.push(w) });
    let helped = 0;
    const job = run(request(PRESSURE_RETENTION_CANDIDATE), () => {}, { helper: true, helperDone: () => helped++ });
    expect(threads.length).toBe(2);
    const gone = threads.map(exited);
    job.stop();
    await expect(job.done).rejects.toThrow(/exited/);
    await Promise.all(gone);
    expect(helped).toBe(0);
    const next = run(request(PRESSURE_RETENTION_CANDIDATE), () => {}, { helper: true, helperDone: () => helped++ });
    expect(noTime(await next.done)).toEqual(noTime(inline));
    expect(threads.length).toBe(4);
    for (const w of threads.slice(2)) void w.terminate();
  }, 180_000);

  it("a job whose only waiter goes away (the route's client) is cancelled, and its thread's memory is given back", async () => {
    const MB = 1024 * 1024;
    const threads: Worker[] = [];
    const queue = new PreviewQueue(sqliteStore(db), threadRunner(file, { onThread: (w) => threads.push(w) }));
    // 16 pools of a million blocks: ~28 bytes of each block are written up front, so ~450 MB appear at once.
    const big = preparePreview(
      {
        kind: "retention",
        document: { rules: [] },
        window: WINDOW,
        baseline: START,
        cluster: { workers: 16, kv_total_blocks: 1_000_000, block_size: 64 },
      },
      WINDOW.to,
    );
    const before = process.memoryUsage().rss;
    const job = await queue.submit(big, "user:1");
    await expect
      .poll(() => process.memoryUsage().rss - before, { timeout: 60_000, interval: 20 })
      .toBeGreaterThan(400 * MB);
    expect(queue.status(job.id)!.status).toBe("running");
    const gone = threads.map(exited);
    queue.release(job.id);
    expect(queue.status(job.id)!.status).toBe("cancelled");
    expect(queue.threadsInUse).toBe(0);
    // The job's thread ends; its helper, given back idle (the window is short), is ended here.
    for (const w of threads.slice(1)) void w.terminate();
    await Promise.all(gone);
    // The thread's heap and pools go with it (what stays is allocator slack of the thread that ran).
    await expect
      .poll(() => process.memoryUsage().rss - before, { timeout: 10_000, interval: 50 })
      .toBeLessThan(100 * MB);
  }, 120_000);

  it("runs each job on one thread when made sequential", () => {
    expect(threadRunner(file, { concurrent: false }).helpers).toBe(false);
  });
});
