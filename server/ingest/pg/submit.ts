import type { PgDb } from "../../../db/pg/client";
import type { BatchReply } from "../batch";
import { recordIngest } from "../../observability/metrics";
import { ingestBodyPg } from "./ingest-body";

/**
 * submitEvents (server/ingest/submit.ts) on PostgreSQL: events produced inside the server (OTLP logs, importers)
 * stored exactly as if posted, with the same validation and idempotency; counted under the sender name "internal".
 */
export async function submitEventsPg(pg: PgDb, events: readonly unknown[]): Promise<BatchReply> {
  if (events.length === 0) return { accepted: 0, duplicate: 0, rejected: 0, items: [] };
  const started = performance.now();
  const { reply, tally } = await ingestBodyPg(pg, JSON.stringify(events), "application/json");
  recordIngest("internal", tally, (performance.now() - started) / 1000, "internal");
  return reply;
}
