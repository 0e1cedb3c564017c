import type { Sender } from "./sender";
import type { IngestTally } from "./tally";

// The hand-off between the server process and route handlers: the server installs an ingest runner (its worker
// pool); route handlers use it when present and ingest inline otherwise (tests, or SWITCHYARD_INGEST_WORKERS=0).

/** One ingested body: the JSON text of its BatchReply and its results by event kind. */
export type IngestOutcome = { json: string; tally: IngestTally };

/**
 * Ingest one body (recording its sender with it, when given): its text, or its bytes as received (UTF-8; the runner
 * may take them over: the worker pool moves them to the thread that decodes them, without a copy).
 */
export type IngestRunner = (body: string | Uint8Array, contentType: string, sender?: Sender) => Promise<IngestOutcome>;

const key = Symbol.for("switchyard.ingestRunner");
type Holder = { [key]?: IngestRunner };

/** The installed runner, if any. */
export function ingestRunner(): IngestRunner | undefined {
  return (globalThis as Holder)[key];
}

/** Install (or with undefined, remove) the process's runner. */
export function setIngestRunner(run: IngestRunner | undefined): void {
  if (run) (globalThis as Holder)[key] = run;
  else delete (globalThis as Holder)[key];
}
