import path from "node:path";
import { Worker } from "node:worker_threads";
import type { PolicyDocuments, PolicyKind } from "../control/policies";
import type { ClusterShape } from "./cluster-shape";
import type { PrefixShape } from "./prefix-shape";
import type { HeaderMode } from "./recorded-replay";
import { assembleResult, planPreview, PreviewCancelled, replayOnce, type PreviewHooks, type Replayed } from "./run";
import type { ClusterOverride, PreviewResult, ReplayInput } from "./types";

// The two runs of a preview side by side: the candidate in a worker thread of its own while this thread replays the
// baseline (they share nothing but the recorded input, copied once), so one preview takes about one run's time on
// two cores. Same results as runPreview: each run is deterministic on its own.

const ENTRY = path.join(process.cwd(), "server", "preview", "replay-worker-entry.mjs");

export type ReplayJob = {
  input: ReplayInput;
  docs: PolicyDocuments;
  header: HeaderMode;
  shape: ClusterShape;
  shapes: [string, PrefixShape][];
};

/** Preview with the candidate run in a worker thread. */
export async function runPreviewParallel(
  input: ReplayInput,
  kind: PolicyKind,
  candidate: unknown,
  override: ClusterOverride | null,
  hooks: PreviewHooks = {},
): Promise<PreviewResult> {
  const started = Date.now();
  const plan = planPreview(input, kind, candidate, override);
  const [docs, header] = plan.runs[1]!;
  const job: ReplayJob = { input, docs, header, shape: plan.shape, shapes: [...plan.shapes] };
  const worker = new Worker(ENTRY, { workerData: job });
  let candShare = 0;
  let baseShare = 0;
  const report = () => hooks.progress?.((baseShare + candShare) / 2);
  const cand = new Promise<Replayed>((resolve, reject) => {
    worker.on("message", (m: { progress?: number; result?: Replayed; error?: string }) => {
      if (m.progress !== undefined) {
        candShare = m.progress;
        report();
      } else if (m.result) resolve(m.result);
      else reject(new Error(m.error ?? "replay thread failed"));
    });
    worker.on("error", reject);
    worker.on("exit", (code) => reject(new Error(`replay thread exited (${code})`)));
  });
  cand.catch(() => {});
  try {
    const base = replayOnce(
      input,
      plan.runs[0]![0],
      plan.runs[0]![1],
      plan.shape,
      plan.shapes,
      (share) => {
        baseShare = share;
        report();
      },
      hooks.cancelled,
    );
    if (hooks.cancelled?.()) throw new PreviewCancelled();
    return assembleResult(input, kind, candidate, plan, base, await cand, started);
  } finally {
    void worker.terminate();
  }
}
