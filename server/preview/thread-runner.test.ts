import fs from "node:fs";
import type { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../db/client";
import { PRESSURE_RETENTION_CANDIDATE } from "../../test/preview-candidates";
import { forgetBaselines } from "./baseline-cache";
import { computePreview } from "./compute";
import { noTime, recordedPressure, request } from "./test-support";
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

  it("runs each job on one thread when made sequential", () => {
    expect(threadRunner(file, { concurrent: false }).helpers).toBe(false);
  });
});
