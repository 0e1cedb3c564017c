import type { Db } from "../db/sqlite/client";
import { insertEventsPg } from "../db/pg/ingest";
import { insertEvents } from "../db/sqlite/ingest";
import type { IngestRow } from "../db/rows/ingest";
import { pgStore, sqliteStore, type Store } from "../db/store/store";
import type { TelemetryEvent } from "../server/ingest/events";
import { createCaller } from "../server/trpc/root";
import { TEST_ADMIN, testCaller, testDb } from "./db";
import { freshPg, PG_TEST_URL } from "./pg";

// The engines a page suite runs on: a store holding the given events, stored (raw rows and rollups) by that engine's
// own ingest.

export type PageStore = {
  store: Store;
  caller: (now: () => number) => ReturnType<typeof testCaller>;
  close: () => Promise<void>;
};
export type PageEngine = {
  engine: "SQLite" | "PostgreSQL";
  skip: boolean;
  seeded: (events: TelemetryEvent[]) => Promise<PageStore>;
};

export const SQLITE_PAGES: PageEngine = {
  engine: "SQLite",
  skip: false,
  seeded: async (events) => {
    const db = testDb();
    if (events.length) insertEvents(db, events);
    return { store: sqliteStore(db), caller: (now) => testCaller(db, now), close: async () => void db.$client.close() };
  },
};

export const POSTGRES_PAGES: PageEngine = {
  engine: "PostgreSQL",
  skip: !PG_TEST_URL,
  seeded: async (events) => {
    const { pg, drop } = await freshPg();
    const store = pgStore(pg);
    if (events.length) await insertEventsPg(pg, events as IngestRow[]);
    // No SQLite connection: a procedure that still reads ctx.db fails here instead of reading another engine's rows.
    const noDb = null as unknown as Db;
    return { store, caller: (now) => createCaller({ store, now, actor: TEST_ADMIN }), close: drop };
  },
};
