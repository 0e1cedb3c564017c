import type { Db } from "../../db/client";
import { baselineKey, keepBaseline, keptBaseline } from "./baseline-cache";
import { loadWindow } from "./load";
import type { PreparedPreview } from "./request";
import { assembleResult, planPreview, replayOnce, type PreviewHooks, type Replayed, type ReplayPlan } from "./run";
import type { PreviewResult, ReplayInput } from "./types";

// The body of one preview job: read the window, replay the baseline (or take it from the kept runs) and the
// candidate, compare. In a preview thread the baseline runs in a helper thread beside the candidate (two cores, two
// runs); inline (tests, in-memory stores) both run here one after the other.

/** Runs the baseline of a request in another thread: its own read of the window, its key and the run. */
export type BaselineRunner = (request: PreparedPreview) => {
  done: Promise<{ key: string; run: Replayed }>;
  /** Share of the baseline run done, 0–1 (readable while this thread is busy). */
  progress: () => number;
};

type Prepared = { input: ReplayInput; plan: ReplayPlan; key: string };

/** The window read and planned for `p`, with the key of its baseline run. */
export function prepareRuns(db: Db, p: PreparedPreview): Prepared {
  const input = loadWindow(db, p.from, p.to, { baseline: p.baseline });
  const plan = planPreview(input, p.kind, p.document, p.cluster);
  return { input, plan, key: baselineKey(input, plan, p.cluster) };
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
export function computePreview(db: Db, p: PreparedPreview, hooks: PreviewHooks = {}): PreviewResult {
  const started = Date.now();
  const prep = prepareRuns(db, p);
  hooks.progress?.(0.02);
  const kept = keptBaseline(prep.key);
  const share = kept ? 0 : 0.5;
  const base = kept ?? replayRun(prep, 0, (s) => hooks.progress?.(0.02 + 0.98 * share * s), hooks.cancelled);
  if (!kept) keepBaseline(prep.key, base);
  const cand = replayRun(prep, 1, (s) => hooks.progress?.(0.02 + 0.98 * (share + (1 - share) * s)), hooks.cancelled);
  return assembleResult(prep.input, p.kind, p.document, prep.plan, base, cand, started);
}

/**
 * Preview `p` with the baseline run in a helper thread at the same time as the candidate here (unless it is kept).
 * The helper reads the window itself; if it read other rows (late ingest between the two reads), the baseline is
 * replayed here instead, so both runs always see the same window.
 */
export async function computePreviewParallel(
  db: Db,
  p: PreparedPreview,
  helper: BaselineRunner,
  hooks: PreviewHooks = {},
): Promise<PreviewResult> {
  const started = Date.now();
  const prep = prepareRuns(db, p);
  hooks.progress?.(0.02);
  const kept = keptBaseline(prep.key);
  if (kept) {
    const cand = replayRun(prep, 1, (s) => hooks.progress?.(0.02 + 0.98 * s), hooks.cancelled);
    return assembleResult(prep.input, p.kind, p.document, prep.plan, kept, cand, started);
  }
  const remote = helper(p);
  const cand = replayRun(prep, 1, (s) => hooks.progress?.(0.02 + 0.49 * (s + remote.progress())), hooks.cancelled);
  const got = await remote.done.catch(() => null);
  const base =
    got && got.key === prep.key
      ? got.run
      : replayRun(prep, 0, (s) => hooks.progress?.(0.51 + 0.49 * s), hooks.cancelled);
  keepBaseline(prep.key, base);
  hooks.progress?.(1);
  return assembleResult(prep.input, p.kind, p.document, prep.plan, base, cand, started);
}
