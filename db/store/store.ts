import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import type { PgDb } from "../pg/client";
import { pgTables, sqliteTables, type StoreTables } from "./tables";

// The engine-neutral store: one handle over SQLite (better-sqlite3) or PostgreSQL (postgres), so that each query is
// written once. Queries use drizzle's builder on `db` over the tables in `t` and always `await` it: a SQLite builder
// runs synchronously when awaited and resolves to the same rows a PostgreSQL one does. Rows written are counted with
// `.returning()` (both engines have RETURNING; their "rows affected" results differ).

/**
 * The builder methods both dialects share, typed as PostgreSQL's. Dialect-only methods (`.get()`, `.run()`,
 * `.for()`, `execute`, the relational `query`) are not part of it.
 */
export type StoreDb = Pick<PgDb, "select" | "selectDistinct" | "insert" | "update" | "delete" | "$with">;

export type Store = {
  engine: "sqlite" | "pg";
  db: StoreDb;
  t: StoreTables;
  /**
   * The clock leases compare against, Unix ms: the database's on PostgreSQL (one server clock for every process),
   * this process's on SQLite (every process shares the host's clock and file).
   */
  clock: () => Promise<number>;
};

const sqliteStores = new WeakMap<Db, Store>();

/**
 * The store over a SQLite connection (one per connection, so callers may wrap the same Db freely). The one place
 * SQLite's builder and tables are handed to queries typed as PostgreSQL's; tables.ts checks the row types agree.
 */
export function sqliteStore(db: Db): Store {
  let store = sqliteStores.get(db);
  if (!store) {
    store = {
      engine: "sqlite",
      db: db as unknown as StoreDb,
      t: sqliteTables as unknown as StoreTables,
      clock: async () => Date.now(),
    };
    sqliteStores.set(db, store);
  }
  return store;
}

/** The database server's time in Unix ms (clock_timestamp: the time now, not the transaction's start). */
const PG_NOW: SQL = sql`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::int8 AS now`;

/** The store over a PostgreSQL pool. */
export function pgStore(pg: PgDb): Store {
  return {
    engine: "pg",
    db: pg,
    t: pgTables,
    clock: async () => Number((await pg.execute<{ now: number }>(PG_NOW))[0]!.now),
  };
}
