import type { Db } from "../../../db/client";
import { submitEvents } from "../../ingest/submit";
import { importTrace, type ImportSummary } from "./import";
import { lastKvState } from "./store";

/** Import a trace byte stream into this server's database (uploads and the watched directory). */
export function importTraceIntoDb(
  db: Db,
  name: string,
  source: AsyncIterable<Uint8Array>,
  onProgress?: (p: { bytes: number; records: number }) => void,
): Promise<ImportSummary> {
  return importTrace(name, source, {
    submit: (events) => submitEvents(db, events),
    kvState: (workerId, ts) => lastKvState(db, workerId, ts),
    onProgress,
  });
}

/** A one-line account of an import for status details and logs. */
export function describeImport(s: ImportSummary): string {
  const parts = [`${s.records} records`, `${s.accepted} accepted`];
  if (s.duplicate) parts.push(`${s.duplicate} already imported`);
  if (s.rejected) parts.push(`${s.rejected} rejected`);
  if (s.badLines) parts.push(`${s.badLines} bad lines (first at line ${s.errors[0]?.line ?? "?"})`);
  if (s.fatal) parts.push(s.fatal);
  return `${s.name}: ${parts.join(", ")}`;
}
