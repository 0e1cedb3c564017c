import type { Db } from "../../db/client";
import { loadWindow } from "./load";
import type { PreparedPreview } from "./request";
import { runPreview, type PreviewHooks } from "./run";
import type { PreviewResult } from "./types";

/** Read the window and replay it under the candidate (the body of one preview job, in a thread or in-process). */
export function computePreview(db: Db, p: PreparedPreview, hooks: PreviewHooks = {}): PreviewResult {
  const input = loadWindow(db, p.from, p.to, { baseline: p.baseline });
  hooks.progress?.(0.02);
  return runPreview(input, p.kind, p.document, p.cluster, hooks);
}
