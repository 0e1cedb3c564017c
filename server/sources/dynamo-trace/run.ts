import { lastKvState } from "../../../db/store/trace-import";
import type { SourceSink } from "../status";
import { importTrace, type ImportSummary } from "./import";

/**
 * Import a trace byte stream through a source sink (uploads and the watched directory): events go through that
 * engine's own ingest, the KV state load samples continue from is read from its store.
 */
export function importTraceInto(
  sink: SourceSink,
  name: string,
  source: AsyncIterable<Uint8Array>,
  onProgress?: (p: { bytes: number; records: number }) => void,
): Promise<ImportSummary> {
  return importTrace(name, source, {
    submit: (events) => sink.submit(events),
    kvState: (workerId, ts) => lastKvState(sink.store, workerId, ts),
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
