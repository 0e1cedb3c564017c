import type { Db } from "../db/client";
import { storeEventsPg } from "../db/pg/ingest";
import { storeEvents } from "../db/queries/ingest";
import type { IngestRow } from "../db/rows/ingest";
import { copyRollups } from "../db/store/copy-rollups";
import { pgStore, sqliteStore, type Store } from "../db/store/store";
import type { TelemetryEvent } from "../server/ingest/events";
import { createCaller } from "../server/trpc/root";
import { TEST_ADMIN, testCaller, testDb } from "./db";
import { freshPg, PG_TEST_URL } from "./pg";

// The engines a page suite runs on: a store holding the given events, stored by that engine's own ingest. PostgreSQL's
// ingest keeps raw rows only, so its rollups are those a SQLite ingest of the same events computed (copyRollups).

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

const DAY = 86_400_000;

export const SQLITE_PAGES: PageEngine = {
  engine: "SQLite",
  skip: false,
  seeded: async (events) => {
    const db = testDb();
    if (events.length) storeEvents(db, events);
    return { store: sqliteStore(db), caller: (now) => testCaller(db, now), close: async () => void db.$client.close() };
  },
};

export const POSTGRES_PAGES: PageEngine = {
  engine: "PostgreSQL",
  skip: !PG_TEST_URL,
  seeded: async (events) => {
    const { pg, drop } = await freshPg();
    const store = pgStore(pg);
    if (events.length) {
      await storeEventsPg(pg, events as IngestRow[]);
      const scratch = testDb();
      storeEvents(scratch, events);
      const ts = events.map((e) => e.ts);
      await copyRollups(sqliteStore(scratch), store, Math.min(...ts) - DAY, Math.max(...ts) + DAY);
      scratch.$client.close();
    }
    // No SQLite connection: a procedure that still reads ctx.db fails here instead of reading another engine's rows.
    const noDb = null as unknown as Db;
    return { store, caller: (now) => createCaller({ db: noDb, now, actor: TEST_ADMIN, store }), close: drop };
  },
};
