// bench:queries' PostgreSQL side: a fresh database (on SWITCHYARD_TEST_DATABASE_URL's server, else a throwaway one)
// filled with the same events by PostgreSQL's own ingest (raw rows and the rollups it computes), its chart chunks
// sealed as the leader seals them, analyzed so its planner has statistics, and a caller over its store.
import { connectPg, type PgDb } from "../db/pg/client";
import { insertEventsPg } from "../db/pg/ingest";
import { sealChartChunks } from "../server/jobs/chart-seal";
import type { IngestRow } from "../db/rows/ingest";
import { pgStore, type Store } from "../db/store/store";
import type { TelemetryEvent } from "../server/ingest/events";
import { startThrowawayPg, type ThrowawayPg } from "../test/pg-server";
import { freshPg } from "../test/pg";

export type PgBench = {
  store: Store;
  /** Store one batch of the generated events (in order). */
  add: (batch: readonly TelemetryEvent[]) => Promise<void>;
  /** Seal the chart chunks as the leader would have while the events came in, analyze the tables, checkpoint. */
  finish: () => Promise<void>;
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
      await insertEventsPg(pg, batch as readonly IngestRow[]);
    },
    finish: async () => {
      await sealChartChunks(pg.$client);
      await pg.$client`VACUUM ANALYZE`;
      // The load's dirty pages written now, not by the checkpointer while calls are timed (a superuser's right).
      await pg.$client`CHECKPOINT`.catch(() => undefined);
    },
    close: async () => {
      await pg.$client.end({ timeout: 5 });
      await fresh.drop();
      server?.stop();
    },
  };
}
