import { ConfinedPathError, fsErrorCode, writeFileConfined, type Confinement } from "../../files/confined-path";
import type { PolicyKind } from "../../../lib/policies/policies";
import type { PushAdapter, PushResult } from "../reconciler";

/**
 * Writes the autoscaling document as JSON to a file inside the target folder, atomically (a new temp file beside it,
 * then a rename). The name is checked again on every push: one refused (stored by an earlier version, or a link
 * planted since) is a rejected push and nothing is written.
 */
export function plannerFileAdapter(config: { path: string }, folder: Confinement): PushAdapter {
  return {
    async push(kind: PolicyKind, _version: number, document: unknown): Promise<PushResult> {
      if (kind !== "autoscaling")
        return { status: "rejected", message: `the planner file takes only autoscaling policies, not ${kind}` };
      try {
        await writeFileConfined(folder, config.path, `${JSON.stringify(document, null, 2)}\n`);
      } catch (err) {
        if (err instanceof ConfinedPathError) return { status: "rejected", message: err.message };
        throw new Error(`cannot write ${folder.field} inside ${folder.setting}: ${fsErrorCode(err)}`);
      }
      return { status: "applied" };
    },
  };
}
