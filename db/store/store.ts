import { AsyncLocalStorage } from "node:async_hooks";
import { sql, type SQL } from "drizzle-orm";
import { isBusy, type Db } from "../sqlite/client";
import { writeIntent } from "../sqlite/write-intent";
import { drizzle } from "drizzle-orm/postgres-js";
import { pgTransaction, type PgDb } from "../pg/client";
import * as schema from "../pg/schema";
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
  /**
   * The SQLite connection under this store (null on PostgreSQL): for the few things only SQLite has (its file's
   * size, the preview threads that open the same file, the synchronous ingest path).
   */
  sqlite: Db | null;
  /** The PostgreSQL pool under this store (null on SQLite): for PostgreSQL's own ingest path and chart sealer. */
  pg: PgDb | null;
  db: StoreDb;
  t: StoreTables;
  /**
   * The clock leases compare against, Unix ms: the database's on PostgreSQL (one server clock for every process),
   * this process's on SQLite (every process shares the host's clock and file).
   */
  clock: () => Promise<number>;
  /**
   * Run `fn` in one transaction over the store it is handed: committed when it resolves, rolled back when it throws
   * (the error is rethrown). A tx begun inside another on the same connection or pool (through either store) joins
   * the outer one: it commits or rolls back with it. SQLite: this process's transactions on one file run one
   * after another, whichever connection (BEGIN IMMEDIATE, so the write lock is taken up front), and any other
   * statement on that connection while `fn` awaits runs inside it; a write outside store.tx through another
   * connection of the same thread would block that thread until its busy timeout (the holder cannot go on meanwhile).
   * PostgreSQL: one reserved pooled connection at READ COMMITTED; transactions of one
   * process run side by side. On both: no network I/O inside `fn`.
   */
  tx: <T>(fn: (s: Store) => Promise<T>) => Promise<T>;
};

const sqliteStores = new WeakMap<Db, Store>();

/**
 * The store over a SQLite connection (one per connection, so callers may wrap the same Db freely). The one place
 * SQLite's builder and tables are handed to queries typed as PostgreSQL's; tables.ts checks the row types agree.
 */
export function sqliteStore(db: Db): Store {
  let store = sqliteStores.get(db);
  if (!store) {
    const base = {
      engine: "sqlite" as const,
      sqlite: db,
      pg: null,
      db: db as unknown as StoreDb,
      t: sqliteTables as unknown as StoreTables,
      clock: async () => Date.now(),
    };
    const inner: Store = { ...base, tx: (fn) => fn(inner) };
    store = { ...base, tx: sqliteTx(db, inner) };
    sqliteStores.set(db, store);
  }
  return store;
}

/**
 * The last transaction queued on each SQLite file of this process (resolves, never rejects, once it has ended); an
 * in-memory database is its connection alone. Per file, not per connection: a second connection's BEGIN IMMEDIATE
 * would block this thread on busy_timeout for a lock only this same thread can release.
 */
const fileQueues = new Map<string, Promise<void>>();
const memoryQueues = new WeakMap<Db, Promise<void>>();

/** Wait for the transactions queued before on this database's file; resolves to the function ending this turn. */
async function takeTurn(db: Db): Promise<() => void> {
  const file = db.$client.memory ? null : db.$client.name;
  const previous = (file === null ? memoryQueues.get(db) : fileQueues.get(file)) ?? Promise.resolve();
  let ended!: () => void;
  const mine = new Promise<void>((resolve) => (ended = resolve));
  if (file === null) memoryQueues.set(db, mine);
  else fileQueues.set(file, mine);
  await previous;
  return () => {
    ended();
    if (file !== null && fileQueues.get(file) === mine) fileQueues.delete(file);
  };
}

/**
 * The transactions the running async call is inside: connection or pool → its transaction's store, while open (work
 * a transaction left running after it ended sees it closed and begins its own).
 */
const openTx = new AsyncLocalStorage<ReadonlyMap<object, { store: Store; open: boolean }>>();

/** Run fn inside the transaction already open on `key` for this call, or in a new one begun by `begin`. */
async function joinOrBegin<T>(
  key: object,
  fn: (s: Store) => Promise<T>,
  begin: (run: (s: Store) => Promise<T>) => Promise<T>,
): Promise<T> {
  const open = openTx.getStore();
  const joined = open?.get(key);
  if (joined?.open) return fn(joined.store);
  return begin(async (store) => {
    const entry = { store, open: true };
    try {
      return await openTx.run(new Map(open).set(key, entry), () => fn(store));
    } finally {
      entry.open = false;
    }
  });
}

/**
 * better-sqlite3's own transactions are synchronous (an async callback would commit at its first await): this one
 * waits its turn on the file, then holds BEGIN IMMEDIATE … COMMIT across `fn`'s awaits.
 */
function sqliteTx(db: Db, inner: Store): Store["tx"] {
  return (fn) =>
    joinOrBegin(db, fn, async (run) => {
      const ended = await takeTurn(db);
      try {
        const client = db.$client;
        await beginImmediate(client);
        try {
          const out = await run(inner);
          client.exec("COMMIT");
          return out;
        } catch (err) {
          if (client.inTransaction) client.exec("ROLLBACK");
          throw err;
        }
      } finally {
        ended();
      }
    });
}

const TX_LOCK_RETRY_MS = 2;
/**
 * The longest a transaction waits for another connection's write lock, or the connection's busy_timeout if longer. It
 * waits on the event loop, not blocking it, so it can wait longer than a synchronous write on the same connection
 * (sharedDb: 250 ms): behind an attribution flush or a burst of ingest batches 250 ms was too short for a publish.
 */
export const TX_LOCK_WAIT_MS = 10_000;

/**
 * BEGIN IMMEDIATE without blocking the thread, waiting for another connection's write lock up to TX_LOCK_WAIT_MS.
 * SQLite's own wait would hold the event loop (every page and API call of the dashboard) while an ingest or
 * attribution thread's batch has the lock. Here each try asks once (busy_timeout 0 for that statement) and the event
 * loop runs between tries, 2 ms apart. While it waits, the ingest and attribution threads hold back their next
 * transaction (write-intent.ts): they retry within a fraction of a millisecond and took the lock back before almost
 * every try, so under load a publish waited out its whole deadline and failed.
 */
async function beginImmediate(client: Db["$client"]): Promise<void> {
  const timeout = client.pragma("busy_timeout", { simple: true }) as number;
  const deadline = performance.now() + Math.max(timeout, TX_LOCK_WAIT_MS);
  let waiting: (() => void) | null = null;
  try {
    for (;;) {
      client.pragma("busy_timeout = 0");
      try {
        client.exec("BEGIN IMMEDIATE");
        return;
      } catch (err) {
        if (!isBusy(err) || performance.now() >= deadline) throw err;
      } finally {
        client.pragma(`busy_timeout = ${timeout}`);
      }
      waiting ??= writeIntent().announce();
      await new Promise((r) => setTimeout(r, TX_LOCK_RETRY_MS));
    }
  } finally {
    waiting?.();
  }
}

/** The database server's time in Unix ms (clock_timestamp: the time now, not the transaction's start). */
const PG_NOW: SQL = sql`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::int8 AS now`;

/** What a PostgreSQL store runs on: the pool, or one transaction's connection. */
type PgRunner = StoreDb & Pick<PgDb, "execute">;

function pgStoreOver(pg: PgDb, q: PgRunner, tx: Store["tx"]): Store {
  return {
    engine: "pg",
    sqlite: null,
    pg,
    db: q,
    t: pgTables,
    clock: async () => Number((await q.execute<{ now: number }>(PG_NOW))[0]!.now),
    tx,
  };
}

/** The store over a PostgreSQL pool. */
export function pgStore(pg: PgDb): Store {
  const inTx = (t: PgRunner): Store => {
    const s: Store = pgStoreOver(pg, t, (fn) => fn(s));
    return s;
  };
  // Not drizzle's pg.transaction (the driver's sql.begin): see pgTransaction for why.
  // drizzle reads the pool's type parsers from `options`, which a reserved connection shares but does not expose.
  const begin = <T>(run: (s: Store) => Promise<T>) =>
    pgTransaction(pg.$client, (conn) =>
      run(inTx(drizzle(Object.assign(conn, { options: pg.$client.options }), { schema }) as unknown as PgDb)),
    );
  return pgStoreOver(pg, pg, (fn) => joinOrBegin(pg.$client, fn, begin));
}
