// bench:preview's timing: plain simulator runs, previews on one thread (baseline then candidate) and previews with a
// helper thread (the baseline beside the candidate) in alternating pairs, so that the two ways are compared in the same
// minutes of a busy machine; each timed in wall and CPU seconds (every thread of the process).
import { MessageChannel, Worker } from "node:worker_threads";
import type { Db } from "../db/sqlite/client";
import { forgetBaselines } from "../server/preview/baseline-cache";
import { helperOn, type BaselineHelper } from "../server/preview/baseline-helper";
import { computePreview, computePreviewBeside, MIN_HELPED_TURNS } from "../server/preview/compute";
import type { PreparedPreview } from "../server/preview/request";
import type { PreviewResult } from "../server/preview/types";
import { threadCpu } from "./thread-cpu";
import { median as medianOf } from "../lib/quantile";
import { threadFile } from "../server/thread-file";

/**
 * `main`: CPU s of this thread (the preview's own: read, candidate, and the baseline when alone); `helper`: of the
 * helper thread (the baseline beside it); the rest of `cpu` is V8's and libuv's threads. On an idle 2-core machine the
 * wall time of a helped preview is about max(main, helper): what it is on a busy one depends on who else runs.
 */
export type Timing = { wall: number; cpu: number; main: number; helper: number };
export type Timings = {
  plain: Timing[];
  sequential: Timing[];
  concurrent: Timing[];
  /** One-thread preview with the baseline kept (a second candidate on the window). */
  kept: Timing;
  result: PreviewResult;
};

/** CPU seconds of this process so far, every thread. */
const cpuS = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** CPU s of this process's main thread and of its preview threads (they name themselves), from /proc (Linux). */
function threadsCpu(): { main: number; helper: number } {
  let main = 0;
  let helper = 0;
  for (const [tid, t] of threadCpu(process.pid)) {
    if (tid === process.pid) main += t.cpu;
    else if (t.name === "sy-preview") helper += t.cpu;
  }
  return { main, helper };
}

async function timed<T>(f: () => T | Promise<T>): Promise<[T, Timing]> {
  const t = performance.now();
  const c = cpuS();
  const th = threadsCpu();
  const v = await f();
  const th2 = threadsCpu();
  return [
    v,
    { wall: (performance.now() - t) / 1000, cpu: cpuS() - c, main: th2.main - th.main, helper: th2.helper - th.helper },
  ];
}

/** A preview thread as the dashboard keeps one, serving as the helper of the previews run here. */
async function helperThread(dbFile: string): Promise<{ lend: () => BaselineHelper; close: () => Promise<number> }> {
  const worker = new Worker(threadFile("preview"), { workerData: { dbFile } });
  let seq = 0;
  const lend = () => {
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ id: ++seq, serve: port2 }, [port2]);
    return helperOn(port1);
  };
  // Loaded and listening once it answers a first (empty) request: module loading is not timed (the dashboard's
  // threads are kept between jobs).
  const ready = new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("error", reject);
  });
  lend().release();
  await ready;
  return { lend, close: () => worker.terminate() };
}

const same = (a: PreviewResult, b: PreviewResult) =>
  a.candidate.hit_rate === b.candidate.hit_rate &&
  a.baseline.hit_rate === b.baseline.hit_rate &&
  a.candidate.ttft_p95_ms === b.candidate.ttft_p95_ms &&
  a.baseline.ttft_p95_ms === b.baseline.ttft_p95_ms;

/** `pairs` rounds of plain run, then both previews (their order alternating); then one with the baseline kept. */
export async function timePreviews(
  db: Db,
  dbFile: string,
  request: PreparedPreview,
  plainRun: () => void,
  pairs: number,
  sequentialOnly: boolean,
): Promise<Timings> {
  const helper = sequentialOnly ? null : await helperThread(dbFile);
  const out: Omit<Timings, "kept" | "result"> = { plain: [], sequential: [], concurrent: [] };
  let first: PreviewResult | null = null;
  const check = (r: PreviewResult, how: string) => {
    first ??= r;
    if (!same(r, first)) throw new Error(`the preview ${how} differs from the first`);
  };
  try {
    for (let k = 0; k < pairs; k++) {
      out.plain.push((await timed(plainRun))[1]);
      const order = k % 2 === 0 ? (["concurrent", "sequential"] as const) : (["sequential", "concurrent"] as const);
      for (const how of order) {
        if (how === "concurrent" && !helper) continue;
        forgetBaselines();
        const [r, t] = await timed(() =>
          how === "concurrent" ? computePreviewBeside(db, request, helper!.lend()) : computePreview(db, request),
        );
        check(r, how === "concurrent" ? "with a helper thread" : "on one thread");
        out[how].push(t);
      }
    }
    const [again, kept] = await timed(() => computePreview(db, request));
    check(again, "with the baseline kept");
    return { ...out, kept, result: first! };
  } finally {
    await helper?.close();
  }
}

const median = (xs: number[]) => medianOf(xs) ?? NaN;

/** The timings, each beside the plain run of its own pair, then the medians. */
export function printTimings(t: Timings, minutes: number): void {
  const perHour = (sec: number) => `${((sec * 60) / minutes).toFixed(1)} s per hour`;
  const line = (name: string, x: Timing, plain: Timing) =>
    `  ${name}: ${perHour(x.wall)} (${x.wall.toFixed(1)} s wall, ratio ${(x.wall / plain.wall).toFixed(2)} to the plain run's ${plain.wall.toFixed(1)} s; CPU ${x.cpu.toFixed(1)} s, ${(x.cpu / plain.cpu).toFixed(2)}× its ${plain.cpu.toFixed(1)} s; this thread ${x.main.toFixed(1)} s${x.helper > 0 ? `, helper ${x.helper.toFixed(1)} s` : ""}: longest thread ${(Math.max(x.main, x.helper) / plain.main).toFixed(2)}× the plain run's)`;
  t.plain.forEach((plain, k) => {
    console.log(
      `  pair ${k + 1}${t.concurrent.length ? (k % 2 === 0 ? " (two threads first)" : " (one thread first)") : ""}:`,
    );
    const c = t.concurrent[k];
    if (c)
      console.log(
        line("  preview, helper thread (as the dashboard with a slot free)", c, plain) +
          (c.helper === 0 ? ` — not helped: under ${MIN_HELPED_TURNS} turns, both runs on one thread` : ""),
      );
    console.log(line("  preview, one thread (baseline then candidate)", t.sequential[k]!, plain));
  });
  const last = t.plain.at(-1)!;
  console.log(line("again, baseline kept (a second candidate on this window)", t.kept, last));
  const ratios = (xs: Timing[], f: (x: Timing) => number) => median(xs.map((x, k) => f(x) / f(t.plain[k]!)));
  const sum = (name: string, xs: Timing[]) =>
    xs.length &&
    console.log(
      `  median ${name}: ${perHour(median(xs.map((x) => x.wall)))}, wall ratio ${ratios(xs, (x) => x.wall).toFixed(2)}, CPU ratio ${ratios(xs, (x) => x.cpu).toFixed(2)}, longest thread's CPU ratio ${ratios(xs, (x) => Math.max(x.main, x.helper)).toFixed(2)} (to the plain run of the same pair; target ≤ 5 s per hour)`,
    );
  sum("preview, helper thread", t.concurrent);
  sum("preview, one thread", t.sequential);
  if (t.concurrent.length)
    console.log(
      `  helper thread / one thread, same pair: wall ${median(t.concurrent.map((x, k) => x.wall / t.sequential[k]!.wall)).toFixed(2)}, CPU ${median(t.concurrent.map((x, k) => x.cpu / t.sequential[k]!.cpu)).toFixed(2)} (median of ${t.concurrent.length})`,
    );
}
