import type { Db } from "../../db/sqlite/client";
import type { PgDb } from "../../db/pg/client";
import { pgStore, sqliteStore } from "../../db/store/store";
import { submitEvents } from "../ingest/submit";
import { submitEventsPg } from "../ingest/pg/submit";
import type { SourceSink } from "./status";

// The two engines' source sinks: what the source manager and each running source store through.

/** Sources on the SQLite file: status on its store, events through SQLite ingest (the worker pool when installed). */
export function sqliteSink(db: Db): SourceSink {
  return { store: sqliteStore(db), submit: (events) => submitEvents(db, events) };
}

/** Sources on PostgreSQL: status on its store, events through PostgreSQL ingest. */
export function pgSink(pg: PgDb): SourceSink {
  return { store: pgStore(pg), submit: (events) => submitEventsPg(pg, events) };
}
