import type { Db } from "../../db/sqlite/client";
import { baselineKey, keepBaseline, keptBaseline } from "./baseline-cache";
import type { BaselineHelper } from "./baseline-helper";
import { loadWindow } from "./load";
import type { PreparedPreview } from "./request";
import { assembleResult, planPreview, replayOnce, type PreviewHooks, type Replayed, type ReplayPlan } from "./run";
import type { PreviewResult, ReplayInput } from "./types";
import { sqliteWindow, windowSourceOf, type WindowSource } from "./window-source";
import type { Store } from "../../db/store/store";

// The body of one preview job: read the window, replay the baseline (or take it from the kept runs) and the
// candidate, compare. With a helper thread (baseline-helper.ts) the baseline replays there while this thread replays
// the candidate; the window is read once, here. Without one both run here, one after the other. (A first helper, which
// read the window again itself, was tried on the preamble case and removed: there the baseline was ~80% of the work.
// In the steady case the two runs cost about the same.)

type Prepared = { input: ReplayInput; plan: ReplayPlan; key: string };

/**
 * Windows with fewer turns replay both runs here and give the helper back: a helped preview costs ~0.2–0.3 CPU s more
 * (the helper's own V8 compiles the replay, the window is copied into it), about what the helper would save on a window
 * whose two runs take ~1 s (the pressure hour, ~1,200 turns: 1.23× the CPU for 0.1–0.4 s less wait).
 */
export const MIN_HELPED_TURNS = 2_000;

/** Where a preview reads its window: a SQLite connection (read through sqliteWindow) or a store. */
export type WindowFrom = Db | Store;

/** The source of the cluster a preview replays. */
const sourceOf = (w: WindowFrom, cluster: string): WindowSource =>
  "$client" in w ? sqliteWindow(w, cluster) : windowSourceOf(w, cluster);

/** The window read and planned for `p`, with the key of its baseline run. */
export async function prepareRuns(from: WindowFrom, p: PreparedPreview): Promise<Prepared> {
  const input = await loadWindow(sourceOf(from, p.scope), p.from, p.to, { baseline: p.baseline });
  const plan = planPreview(input, p.kind, p.document, p.cluster);
  return { input, plan, key: `${p.scope}:${baselineKey(input, plan, p.cluster)}` };
}

/** One run of a prepared window: 0 the baseline, 1 the candidate. */
export function replayRun(
  { input, plan }: Prepared,
  r: 0 | 1,
  progress: (share: number) => void,
  cancelled?: () => boolean,
): Replayed {
  const [docs, mode] = plan.runs[r]!;
  return replayOnce(input, docs, mode, plan.shape, plan.shapes, progress, cancelled);
}

/** Preview `p` on this thread: the baseline from the kept runs when this window was replayed before. */
export async function computePreview(
  from: WindowFrom,
  p: PreparedPreview,
  hooks: PreviewHooks = {},
): Promise<PreviewResult> {
  const started = Date.now();
  return finish(await prepareRuns(from, p), p, hooks, started);
}

/** Both runs of a read window on this thread (the baseline taken from the kept runs when it is there). */
function finish(prep: Prepared, p: PreparedPreview, hooks: PreviewHooks, started: number): PreviewResult {
  hooks.progress?.(0.02);
  const kept = keptBaseline(prep.key);
  const share = kept ? 0 : 0.5;
  const base = kept ?? replayRun(prep, 0, (s) => hooks.progress?.(0.02 + 0.98 * share * s), hooks.cancelled);
  if (!kept) keepBaseline(prep.key, base);
  const cand = replayRun(prep, 1, (s) => hooks.progress?.(0.02 + 0.98 * (share + (1 - share) * s)), hooks.cancelled);
  hooks.progress?.(1);
  return { ...assembleResult(prep.input, p.kind, p.document, prep.plan, base, cand, started), scope: p.scope };
}

/**
 * Preview `p` with the baseline replayed by `helper` in another thread while this thread replays the candidate (the
 * helper is released at once when the baseline is kept or the window has fewer than `minTurns` turns). Progress is the mean of both runs' shares. Should the helper
 * fail or go away, the baseline is replayed here after the candidate: the result is the same either way.
 */
export async function computePreviewBeside(
  from: WindowFrom,
  p: PreparedPreview,
  helper: BaselineHelper,
  hooks: PreviewHooks = {},
  minTurns = MIN_HELPED_TURNS,
): Promise<PreviewResult> {
  const started = Date.now();
  let prep: Prepared;
  try {
    prep = await prepareRuns(from, p);
  } catch (err) {
    helper.release();
    throw err;
  }
  if (keptBaseline(prep.key) || prep.input.turns.length < minTurns) {
    helper.release();
    return finish(prep, p, hooks, started);
  }
  hooks.progress?.(0.02);
  const [docs, header] = prep.plan.runs[0]!;
  const remote = helper.start({
    key: prep.key,
    input: prep.input,
    docs,
    header,
    shape: prep.plan.shape,
    shapes: prep.plan.shapes,
  });
  remote.done.catch(() => undefined); // awaited below unless the candidate throws first (cancelled)
  const both = (s: number) => hooks.progress?.(0.02 + 0.49 * (s + remote.progress()));
  const cand = replayRun(prep, 1, both, hooks.cancelled);
  const ticker = setInterval(() => both(1), 200);
  let base: Replayed;
  try {
    base = await remote.done;
  } catch {
    base = replayRun(prep, 0, (s) => hooks.progress?.(0.51 + 0.49 * s), hooks.cancelled);
  } finally {
    clearInterval(ticker);
  }
  keepBaseline(prep.key, base);
  hooks.progress?.(1);
  return { ...assembleResult(prep.input, p.kind, p.document, prep.plan, base, cand, started), scope: p.scope };
}
