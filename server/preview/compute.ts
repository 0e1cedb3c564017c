import type { Db } from "../../db/client";
import { baselineKey, keepBaseline, keptBaseline } from "./baseline-cache";
import { loadWindow } from "./load";
import type { PreparedPreview } from "./request";
import { assembleResult, planPreview, replayOnce, type PreviewHooks, type Replayed, type ReplayPlan } from "./run";
import type { PreviewResult, ReplayInput } from "./types";

// The body of one preview job: read the window, replay the baseline (or take it from the kept runs) and the
// candidate, one after the other, compare. (A helper thread running the baseline beside the candidate was tried: on
// the idle 2-core machine it previewed the preamble hour in 2.36–2.42× a plain simulator run against 2.32–2.45× on
// one thread, within noise, for 10–24% more CPU, since the baseline is ~80% of the work; it was removed.)

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
  hooks.progress?.(1);
  return assembleResult(prep.input, p.kind, p.document, prep.plan, base, cand, started);
}
