import type { Db } from "../../db/sqlite/client";
import { recordSourceOk } from "../../db/sqlite/source-registry";
import { recordDroppedEvents } from "../../db/sqlite/sources";

// Who posted a batch (X-Switchyard-Source) and the dropped-events total it reported, recorded with the batch itself.

/** A sender as its request headers name it; dropped: its running dropped-events total, null when not reported. */
export type Sender = { source: string; dropped: number | null };

/**
 * Show the sender on the Sources page (last data, events accepted) and keep its dropped-events report. Runs inside
 * the batch's own write transaction, so it never waits for the write lock on its own and commits with the events.
 */
export function recordSender(db: Db, sender: Sender, accepted: number, now: number): void {
  const { source, dropped } = sender;
  if (dropped !== null) recordDroppedEvents(db, source, dropped, now);
  const name = source === "unknown" ? "Ingest API (sender without X-Switchyard-Source)" : `${source} (ingest API)`;
  recordSourceOk(db, { id: `ingest:${source}`, kind: "ingest", name }, now, { events: accepted });
}
