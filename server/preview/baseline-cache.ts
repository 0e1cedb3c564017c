import { createHash } from "node:crypto";
import { canonicalJson } from "../control/content-hash";
import type { PolicyDocuments } from "../../lib/policies/policies";
import type { ReplayPlan, Replayed } from "./run";
import type { ClusterOverride, ReplayInput } from "./types";
import { PREVIEW_KEPT_BASELINES } from "../../lib/memory-bounds";

// The baseline run of a window depends only on what was recorded, the cluster replayed and the policies in force, not
// on the candidate: kept here (a few windows, in this thread's memory) so that a second candidate on the same window
// replays only itself. The key is the content of the inputs, so a window that gained rows is a new key.

const MAX_KEPT = PREVIEW_KEPT_BASELINES;
const kept = new Map<string, Replayed>();

/** The key of a baseline run: everything replayOnce reads for it, reduced to a hash (per turn: ids, times, chain ends). */
export function baselineKey(input: ReplayInput, plan: ReplayPlan, override: ClusterOverride | null): string {
  const h = createHash("sha256");
  const [docs, header] = plan.runs[0] as [PolicyDocuments, string];
  h.update(
    canonicalJson({
      from: input.from,
      to: input.to,
      override,
      docs,
      header,
      shape: { workers: plan.shape.workers, kvBlocks: plan.shape.kvBlocks, blockSize: plan.shape.blockSize },
      firstRuns: input.firstRuns,
      continuing: input.continuing,
    }),
  );
  const nums = new Float64Array(12);
  for (const t of input.turns) {
    h.update(
      `${t.requestId}\u0000${t.trajectoryId}\u0000${t.sessionId}\u0000${t.parentTrajectoryId ?? ""}\u0000${t.harness ?? ""}\u0000${t.sessionType}\u0000${JSON.stringify(t.hints)}\u0000`,
    );
    const b = t.blocks;
    const n = b ? b.length : 0;
    nums[0] = t.arrivedAt;
    nums[1] = t.finishedAt ?? -1;
    nums[2] = t.inputTokens;
    nums[3] = t.outputTokens;
    nums[4] = t.reasoningTokens;
    nums[5] = t.blockSize ?? -1;
    nums[6] = n;
    nums[7] = n ? b![0]! * 4294967296 + b![1]! : -1;
    nums[8] = n ? b![n - 2]! * 4294967296 + b![n - 1]! : -1;
    nums[9] = n > 4 ? b![(n >> 2) * 2]! * 4294967296 + b![(n >> 2) * 2 + 1]! : -1;
    nums[10] = t.status === "ok" ? 0 : t.status === "error" ? 1 : 2;
    nums[11] = t.phase === "window" ? 0 : t.phase === "warmup" ? 1 : 2;
    h.update(nums);
  }
  return h.digest("hex");
}

/** The kept baseline run for this key, if any (it becomes the most recently used). */
export function keptBaseline(key: string): Replayed | null {
  const r = kept.get(key);
  if (!r) return null;
  kept.delete(key);
  kept.set(key, r);
  return r;
}

/** Keep a finished baseline run; the least recently used one goes beyond MAX_KEPT. */
export function keepBaseline(key: string, run: Replayed): void {
  kept.delete(key);
  kept.set(key, run);
  while (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
}

/** Drop every kept run (the benchmark times cold previews with it). */
export function forgetBaselines(): void {
  kept.clear();
}
