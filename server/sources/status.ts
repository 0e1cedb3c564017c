import type { Db } from "../../db/client";
import { recordSourceError, recordSourceOk } from "../../db/queries/source-registry";
import { errorMessage, log } from "../observability/logger";
import type { SourceSeen } from "../../db/rows/sources";
export type { SourceSeen } from "../../db/rows/sources";

export const SOURCE_KINDS = ["prometheus", "zmq-kv", "trace-dir", "otlp", "trace-upload", "ingest"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export type SourceReport = { ok(at: number, seen: SourceSeen): void; error(at: number, message: string): void };

/** Status writer for one source; creates the status row on first use (implicit sources: "otlp", "trace-upload"). */
export function sourceReporter(db: Db, id: string, kind: SourceKind, name?: string): SourceReport {
  const label = name ?? id;
  return {
    ok(at, seen) {
      safely(() => recordSourceOk(db, { id, kind, name: label }, at, seen));
    },
    error(at, message) {
      safely(() => recordSourceError(db, { id, kind, name: label }, at, message));
    },
  };
}

// A status write must never take the source down with it (e.g. the database is briefly locked by ingest).
function safely(write: () => void): void {
  try {
    write();
  } catch (err) {
    log().error({ err: errorMessage(err) }, "source status not recorded");
  }
}

/** Starts one configured source with its validated config; returns the function that stops it. */
export type SourceStarter<C = never> = (db: Db, id: string, config: C, report: SourceReport) => () => Promise<void>;
