import type { Db } from "../db/sqlite/client";
import { insertEventsPg } from "../db/pg/ingest";
import { insertEvents } from "../db/sqlite/ingest";
import type { IngestRow } from "../db/rows/ingest";
import { pgStore, sqliteStore } from "../db/store/store";
import { runAttribution } from "../server/jobs/attribution";
import { pgAttribution, runAttributionPg } from "../server/jobs/attribution-pg";
import type { TelemetryEvent } from "../server/ingest/events";
import { createCaller } from "../server/trpc/root";
import { TEST_ADMIN, testCaller, testDb } from "./db";
import type { PageEngine } from "./page-stores";
import { freshPg, PG_TEST_URL } from "./pg";

// The engines a sessions suite runs on: a store holding the given events, stored by that engine's own ingest, with
// attribution's outputs, computed by that engine's own attribution job.

export const SQLITE_SESSIONS: PageEngine = {
  engine: "SQLite",
  skip: false,
  seeded: async (events) => {
    const db = testDb();
    if (events.length) insertEvents(db, events);
    runAttribution(db);
    return { store: sqliteStore(db), caller: (now) => testCaller(db, now), close: async () => void db.$client.close() };
  },
};

export const POSTGRES_SESSIONS: PageEngine = {
  engine: "PostgreSQL",
  skip: !PG_TEST_URL,
  seeded: async (events: TelemetryEvent[]) => {
    const { pg, drop } = await freshPg();
    const store = pgStore(pg);
    if (events.length) {
      await insertEventsPg(pg, events as IngestRow[]);
      await runAttributionPg(pgAttribution(pg, 0));
    }
    // No SQLite connection: a procedure that still reads ctx.db fails here instead of reading another engine's rows.
    const noDb = null as unknown as Db;
    return { store, caller: (now) => createCaller({ store, now, actor: TEST_ADMIN }), close: drop };
  },
};
