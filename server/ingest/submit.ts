import type { Store } from "../../db/store/store";
import { recordIngest } from "../observability/metrics";
import type { BatchReply } from "./batch";
import { ingestBodyInline } from "./ingest";
import { ingestRunner } from "./runner";

/**
 * Ingest events produced inside the server (scrapers, subscribers, importers) exactly as if they were posted:
 * the same per-item validation and idempotency, through the worker pool when one is installed. Counted in the
 * metrics under the sender name "internal".
 */
export async function submitEvents(store: Store, events: readonly unknown[]): Promise<BatchReply> {
  if (events.length === 0) return { accepted: 0, duplicate: 0, rejected: 0, items: [] };
  const text = JSON.stringify(events);
  const runner = ingestRunner();
  const started = performance.now();
  if (runner) {
    const { json, tally } = await runner(text, "application/json");
    recordIngest("internal", tally, (performance.now() - started) / 1000, "internal");
    return JSON.parse(json) as BatchReply;
  }
  const { reply, tally } = await ingestBodyInline(store, text, "application/json");
  recordIngest("internal", tally, (performance.now() - started) / 1000, "internal");
  return reply;
}
