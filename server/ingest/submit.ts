import type { Db } from "../../db/client";
import type { BatchReply } from "./batch";
import { ingestBody } from "./ingest";
import { ingestRunner } from "./runner";

/**
 * Ingest events produced inside the server (scrapers, subscribers, importers) exactly as if they were posted:
 * the same per-item validation and idempotency, through the worker pool when one is installed.
 */
export async function submitEvents(db: Db, events: readonly unknown[]): Promise<BatchReply> {
  if (events.length === 0) return { accepted: 0, duplicate: 0, rejected: 0, items: [] };
  const text = JSON.stringify(events);
  const runner = ingestRunner();
  return runner ? (JSON.parse(await runner(text, "application/json")) as BatchReply) : ingestBody(db, text, "application/json");
}
