import type { Db } from "../client";
import type { PgDb } from "../pg/client";
import type { Store, StoreDb } from "./store";

// A transaction over the store for the control plane's writes, until the store seam has its own: on PostgreSQL
// drizzle's transaction; on SQLite BEGIN IMMEDIATE ... COMMIT on the connection, one such transaction at a time per
// connection (a queue), since better-sqlite3's own transactions cannot await. Nested calls join the open one.

const open = new WeakSet<Store>();
const queues = new WeakMap<object, Promise<void>>();

/** Run `fn` in one transaction; it commits when `fn` resolves and rolls back when it throws. */
export async function controlTx<R>(s: Store, fn: (tx: Store) => Promise<R>): Promise<R> {
  if (open.has(s)) return fn(s);
  if (s.engine === "pg") {
    return (s.db as unknown as PgDb).transaction(async (tx) => {
      const inner: Store = { ...s, db: tx as unknown as StoreDb };
      open.add(inner);
      return fn(inner);
    });
  }
  const db = s.db as unknown as Db;
  const before = queues.get(db) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  queues.set(
    db,
    before.then(() => mine),
  );
  await before;
  try {
    // IMMEDIATE: the write lock before the first read, so a busy file waits on busy_timeout instead of failing the
    // read-to-write upgrade while ingest commits.
    db.$client.exec("BEGIN IMMEDIATE");
    const inner: Store = { ...s };
    open.add(inner);
    try {
      const out = await fn(inner);
      db.$client.exec("COMMIT");
      return out;
    } catch (err) {
      if (db.$client.inTransaction) db.$client.exec("ROLLBACK");
      throw err;
    }
  } finally {
    done();
  }
}
