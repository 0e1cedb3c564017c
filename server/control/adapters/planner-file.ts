import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { PolicyKind } from "../policies";
import type { PushAdapter, PushResult } from "../reconciler";

/** Writes the autoscaling document as JSON to a file atomically (temp file in the same folder, then rename). */
export function plannerFileAdapter(config: { path: string }): PushAdapter {
  return {
    async push(kind: PolicyKind, _version: number, document: unknown): Promise<PushResult> {
      if (kind !== "autoscaling")
        return { status: "rejected", message: `the planner file takes only autoscaling policies, not ${kind}` };
      const file = path.resolve(config.path);
      const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
      try {
        await fs.writeFile(temp, `${JSON.stringify(document, null, 2)}\n`, { encoding: "utf8", flag: "wx" });
        await fs.rename(temp, file);
      } catch (err) {
        await fs.rm(temp, { force: true });
        throw err;
      }
      return { status: "applied" };
    },
  };
}
