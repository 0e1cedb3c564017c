import type { BatchReply } from "../ingest/batch";
import { recordSourceError, recordSourceOk, whileConfigured } from "../../db/store/sources";
import type { Store } from "../../db/store/store";
import { errorMessage, log } from "../observability/logger";
import type { SourceSeen } from "../../db/rows/sources";
export type { SourceSeen } from "../../db/rows/sources";

export const SOURCE_KINDS = ["prometheus", "zmq-kv", "trace-dir", "otlp", "trace-upload", "ingest"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** A source's status writer; each write resolves once stored (or logged as failed: it never rejects). */
export type SourceReport = {
  ok(at: number, seen: SourceSeen): Promise<void>;
  error(at: number, message: string): Promise<void>;
};

/**
 * Status writer for one source on the store; creates the status row on first use (implicit sources: "otlp",
 * "trace-upload"). `configured`: a source of the sources table, whose writes are dropped once it is removed (a scrape
 * still running then must not bring its row back). Writes of one reporter are stored in the order they were made.
 */
export function sourceReporter(
  s: Store,
  id: string,
  kind: SourceKind,
  name?: string,
  { configured = false }: { configured?: boolean } = {},
): SourceReport {
  const who = { id, kind, name: name ?? id };
  let last: Promise<void> = Promise.resolve();
  const guarded = (write: (t: Store) => Promise<void>) =>
    configured ? () => whileConfigured(s, id, write).then(() => {}) : () => write(s);
  const queued = (write: () => Promise<void>) => (last = last.then(() => safely(write)));
  return {
    ok: (at, seen) => queued(guarded((t) => recordSourceOk(t, who, at, seen))),
    error: (at, message) => queued(guarded((t) => recordSourceError(t, who, at, message))),
  };
}

// A status write must never take the source down with it (e.g. the database is briefly locked by ingest, or away).
async function safely(write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (err) {
    log().error({ err: errorMessage(err) }, "source status not recorded");
  }
}

/**
 * What a running source needs from the dashboard: the store (its status, import state) and `submit` (events through
 * the engine's own ingest, exactly as if posted).
 */
export type SourceSink = {
  store: Store;
  submit: (events: readonly unknown[]) => Promise<BatchReply>;
};

/** Starts one configured source with its validated config; returns the function that stops it. */
export type SourceStarter<C = never> = (
  sink: SourceSink,
  id: string,
  config: C,
  report: SourceReport,
) => () => Promise<void>;
