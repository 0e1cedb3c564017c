// bench:queries' PostgreSQL side: a fresh database (on SWITCHYARD_TEST_DATABASE_URL's server, else a throwaway one)
// filled with the same events by PostgreSQL's own ingest, plus the rollups SQLite's ingest computed from them (its
// ingest keeps raw rows only so far), analyzed so its planner has statistics, and a caller over its store.
import type { Db } from "../db/client";
import { connectPg, type PgDb } from "../db/pg/client";
import { storeEventsPg } from "../db/pg/ingest";
import type { IngestRow } from "../db/rows/ingest";
import { copyRollups } from "../db/store/copy-rollups";
import { pgStore, sqliteStore, type Store } from "../db/store/store";
import type { TelemetryEvent } from "../server/ingest/events";
import { startThrowawayPg, type ThrowawayPg } from "../test/pg-server";
import { freshPg } from "../test/pg";

export type PgBench = {
  store: Store;
  /** Store one batch of the generated events (in order). */
  add: (batch: readonly TelemetryEvent[]) => Promise<void>;
  /** Copy the rollups SQLite computed for [from, to) and analyze the tables. */
  finish: (sqlite: Db, from: number, to: number) => Promise<number>;
  close: () => Promise<void>;
};

export async function openPgBench(): Promise<PgBench> {
  const given = process.env.SWITCHYARD_TEST_DATABASE_URL;
  const server: ThrowawayPg | null = given ? null : await startThrowawayPg({ durable: false });
  const fresh = await freshPg(given ?? server!.url);
  const pg: PgDb = connectPg(fresh.url, { max: 4 });
  const store = pgStore(pg);
  return {
    store,
    add: async (batch) => {
      await storeEventsPg(pg, batch as readonly IngestRow[]);
    },
    finish: async (sqlite, from, to) => {
      const copied = await copyRollups(sqliteStore(sqlite), store, from, to);
      await pg.$client`VACUUM ANALYZE`;
      return copied;
    },
    close: async () => {
      await pg.$client.end({ timeout: 5 });
      await fresh.drop();
      server?.stop();
    },
  };
}
