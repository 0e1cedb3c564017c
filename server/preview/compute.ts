import type { Db } from "../../db/client";
import { loadWindow } from "./load";
import type { PreparedPreview } from "./request";
import { runPreviewParallel } from "./parallel";
import { runPreview, type PreviewHooks } from "./run";
import type { PreviewResult } from "./types";

/** Read the window and replay it under the candidate (the body of one preview job, in a thread or in-process). */
export function computePreview(db: Db, p: PreparedPreview, hooks: PreviewHooks = {}): PreviewResult {
  const input = loadWindow(db, p.from, p.to, { baseline: p.baseline });
  hooks.progress?.(0.02);
  return runPreview(input, p.kind, p.document, p.cluster, hooks);
}

/** As computePreview, with the candidate run in a thread of its own beside the baseline (two cores: about half the time). */
export function computePreviewParallel(db: Db, p: PreparedPreview, hooks: PreviewHooks = {}): Promise<PreviewResult> {
  const input = loadWindow(db, p.from, p.to, { baseline: p.baseline });
  hooks.progress?.(0.02);
  return runPreviewParallel(input, p.kind, p.document, p.cluster, hooks);
}
