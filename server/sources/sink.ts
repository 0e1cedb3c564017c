import type { Db } from "../../db/sqlite/client";
import type { PgDb } from "../../db/pg/client";
import { pgStore, sqliteStore } from "../../db/store/store";
import { ingestOver } from "../ingest/seam";
import type { SourceSink } from "./status";

// A source's sink is the ingest seam over a store (server/ingest/seam.ts); these two name it for tests and tools
// that hold a connection rather than a store.

/** Sources on a SQLite file. */
export function sqliteSink(db: Db): SourceSink {
  return ingestOver(sqliteStore(db));
}

/** Sources on PostgreSQL. */
export function pgSink(pg: PgDb): SourceSink {
  return ingestOver(pgStore(pg));
}
