import { describe, expect, it } from "vitest";
import { sqliteStore } from "../../db/store/store";
import { testDb } from "../../test/db";
import { AppError } from "../errors";
import { MAX_PER_OWNER, MAX_RUNNING, MAX_WAITING, PreviewQueue, RETRY_AFTER_SECONDS } from "./queue";
import type { RunOptions, Runner } from "./runners";
import { preparePreview } from "./request";
import type { PreviewResult } from "./types";

// The queue's thread budget: at most MAX_RUNNING previews run, and previews use at most MAX_RUNNING threads in all —
// a job takes a helper thread for its baseline only when it starts with the other slot free and nobody waiting, and
// gives that slot back when the helper is done. A runner without helpers runs two jobs at once as before.

type Started = {
  window: number;
  options: RunOptions | undefined;
  stopped: boolean;
  finish: () => void;
  fail: () => void;
};

function fakeRunner(helpers: boolean): { runner: Runner; started: Started[] } {
  const started: Started[] = [];
  const runner: Runner = (request, _progress, options) => {
    let resolve!: (r: PreviewResult) => void;
    let reject!: (e: Error) => void;
    const done = new Promise<PreviewResult>((res, rej) => ((resolve = res), (reject = rej)));
    const s: Started = {
      window: request.from,
      options,
      stopped: false,
      finish: () => resolve(resultOf(request.from)),
      fail: () => reject(new Error("boom")),
    };
    started.push(s);
    return { done, stop: () => (s.stopped = true) };
  };
  runner.helpers = helpers;
  return { runner, started };
}

const resultOf = (from: number) =>
  ({
    kind: "routing",
    content_hash: "x",
    window: { from, to: from + 60_000 },
    baseline: { hit_rate: 0.5 },
    candidate: { hit_rate: 0.6, ttft_p50_ms: 1, ttft_p95_ms: 2 },
  }) as unknown as PreviewResult;

const job = (k: number) =>
  preparePreview(
    { kind: "routing", document: { temperature: 0.1 }, window: { from: k * 60_000, to: (k + 1) * 60_000 } },
    0,
  );

const tick = () => new Promise((r) => setImmediate(r));

type Step = { submit: number } | { helperDone: number } | { finish: number } | { fail: number } | { cancel: number };

type Expect = { statuses: string[]; places: (number | null)[]; helpers: boolean[]; threads: number };

const cases: { name: string; helpers: boolean; steps: Step[]; expect: Expect }[] = [
  {
    name: "a lone job takes the helper slot; the next waits first in line",
    helpers: true,
    steps: [{ submit: 0 }, { submit: 1 }],
    expect: { statuses: ["running", "queued"], places: [null, 1], helpers: [true], threads: 2 },
  },
  {
    name: "the helper done, its slot goes to the waiting job, which gets no helper (its slot is taken)",
    helpers: true,
    steps: [{ submit: 0 }, { submit: 1 }, { helperDone: 0 }],
    expect: { statuses: ["running", "running"], places: [null, null], helpers: [true, false], threads: 2 },
  },
  {
    name: "a job that starts while others wait gets no helper",
    helpers: true,
    steps: [{ submit: 0 }, { submit: 1 }, { submit: 2 }, { finish: 0 }],
    expect: {
      statuses: ["done", "running", "running"],
      places: [null, null, null],
      helpers: [true, false, false],
      threads: 2,
    },
  },
  {
    name: "a helped job that finishes gives back both slots; a later lone job is helped again",
    helpers: true,
    steps: [{ submit: 0 }, { finish: 0 }, { submit: 1 }],
    expect: { statuses: ["done", "running"], places: [null, null], helpers: [true, true], threads: 2 },
  },
  {
    name: "the helper's late word after its job finished frees nothing twice",
    helpers: true,
    steps: [{ submit: 0 }, { finish: 0 }, { helperDone: 0 }, { submit: 1 }, { submit: 2 }],
    expect: { statuses: ["done", "running", "queued"], places: [null, null, 1], helpers: [true, true], threads: 2 },
  },
  {
    name: "cancelling a helped job stops it and frees both slots",
    helpers: true,
    steps: [{ submit: 0 }, { submit: 1 }, { submit: 2 }, { cancel: 0 }],
    expect: {
      statuses: ["cancelled", "running", "running"],
      places: [null, null, null],
      helpers: [true, false, false],
      threads: 2,
    },
  },
  {
    name: "a helped job that fails frees both slots",
    helpers: true,
    steps: [{ submit: 0 }, { submit: 1 }, { fail: 0 }],
    expect: { statuses: ["failed", "running"], places: [null, null], helpers: [true, true], threads: 2 },
  },
  {
    name: "without helpers two jobs run at once, as before",
    helpers: false,
    steps: [{ submit: 0 }, { submit: 1 }, { submit: 2 }],
    expect: {
      statuses: ["running", "running", "queued"],
      places: [null, null, 1],
      helpers: [false, false],
      threads: 2,
    },
  },
  {
    name: "cancelling a job id that is unknown changes nothing",
    helpers: true,
    steps: [{ submit: 0 }, { cancel: 9 }],
    expect: { statuses: ["running"], places: [null], helpers: [true], threads: 2 },
  },
];

describe("preview queue thread budget", () => {
  it.each(cases)("$name", async ({ helpers, steps, expect: want }) => {
    const db = testDb();
    const { runner, started } = fakeRunner(helpers);
    const queue = new PreviewQueue(sqliteStore(db), runner);
    const ids: string[] = [];
    for (const step of steps) {
      if ("submit" in step) ids.push((await queue.submit(job(step.submit))).id);
      else if ("helperDone" in step) started[step.helperDone]!.options!.helperDone();
      else if ("finish" in step) started[step.finish]!.finish();
      else if ("fail" in step) started[step.fail]!.fail();
      else queue.cancel(ids[step.cancel] ?? "none");
      await tick();
      expect(queue.threadsInUse).toBeLessThanOrEqual(MAX_RUNNING);
    }
    const views = ids.map((id) => queue.status(id)!);
    expect(views.map((v) => v.status)).toEqual(want.statuses);
    expect(views.map((v) => v.place)).toEqual(want.places);
    expect(started.map((s) => s.options?.helper ?? false)).toEqual(want.helpers);
    expect(queue.threadsInUse).toBe(want.threads);
    const cancelled = steps.find((s): s is { cancel: number } => "cancel" in s && s.cancel < ids.length);
    if (cancelled) expect(started[cancelled.cancel]!.stopped).toBe(true);
  });
});

describe("limits of the queue", () => {
  it(`holds at most ${MAX_WAITING} waiting jobs; one more is 429 with when to retry`, async () => {
    const { runner } = fakeRunner(false);
    const q = new PreviewQueue(sqliteStore(testDb()), runner);
    for (let k = 0; k < MAX_RUNNING + MAX_WAITING; k++) await q.submit(job(k), `u${k}`);
    const err = await q.submit(job(99), "u99").catch((e: AppError) => e);
    expect(err).toMatchObject({ code: "TOO_MANY_REQUESTS", details: { retry_after: RETRY_AFTER_SECONDS } });
    expect((err as AppError).message).toBe(
      `${MAX_WAITING} previews are waiting (at most ${MAX_WAITING}): try again in 30 s`,
    );
    // Joining one that waits is still allowed.
    expect((await q.submit(job(MAX_RUNNING), "u99")).status).toBe("queued");
  });

  it(`one caller has at most ${MAX_PER_OWNER} queued or running`, async () => {
    const { runner, started } = fakeRunner(false);
    const q = new PreviewQueue(sqliteStore(testDb()), runner);
    await q.submit(job(0), "user:1");
    await q.submit(job(1), "user:1");
    await expect(q.submit(job(2), "user:1")).rejects.toMatchObject({ code: "TOO_MANY_REQUESTS" });
    expect((await q.submit(job(2), "user:2")).status).toBe("queued");
    started[0]!.finish();
    await tick();
    expect((await q.submit(job(3), "user:1")).status).not.toBe("failed");
  });

  it("a job whose every submitter went away is cancelled (and stopped); one still wanted goes on", async () => {
    const { runner, started } = fakeRunner(false);
    const q = new PreviewQueue(sqliteStore(testDb()), runner);
    const alone = await q.submit(job(0), "user:1");
    const shared = await q.submit(job(1), "user:1");
    expect((await q.submit(job(1), "user:2")).id).toBe(shared.id);
    q.release(alone.id);
    q.release(shared.id);
    expect(q.status(alone.id)!.status).toBe("cancelled");
    expect(started[0]!.stopped).toBe(true);
    expect(q.status(shared.id)!.status).toBe("running");
    q.release(shared.id);
    expect(q.status(shared.id)!.status).toBe("cancelled");
  });
});
