import "server-only";
import type { z } from "zod";
import type { Db } from "../../../db/client";
import type { zmqSourceConfig } from "./config";

/** What a source tells the registry after each poll/batch (compatible with server/sources/status.ts). */
export type SourceReport = {
  ok(at: number, seen: { events?: number; series?: number; durationMs?: number; missing?: string[]; renamed?: string[]; gaps?: number; detail?: string }): void;
  error(at: number, message: string): void;
};

/** Subscribe to a vLLM/SGLang KV events publisher and ingest its blocks for config.worker_id; returns stop. */
export function startZmqSource(db: Db, id: string, config: z.output<typeof zmqSourceConfig>, report: SourceReport): () => Promise<void> {
  void db;
  void id;
  void config;
  void report;
  return async () => {};
}
