import type { Db } from "../client";
import type { PgDb } from "../pg/client";
import type { Store, StoreDb } from "./store";

// A transaction over the store for the control plane's writes, until the store seam has its own: on PostgreSQL
// drizzle's transaction; on SQLite BEGIN IMMEDIATE ... COMMIT on the connection, one such transaction at a time per
// database file in this process (a queue), since better-sqlite3's own transactions cannot await. The queue is per
// file, not per connection: a second connection's BEGIN IMMEDIATE would block this thread on busy_timeout waiting
// for a lock that only this same thread can release. Nested calls join the open transaction.

const open = new WeakSet<Store>();
const fileQueues = new Map<string, Promise<void>>();
const memoryQueues = new WeakMap<Db, Promise<void>>();

/** Wait for the transactions queued before on the same file; resolves to the function that lets the next one go. */
async function takeTurn(db: Db): Promise<() => void> {
  const file = db.$client.memory ? null : db.$client.name;
  const before = (file === null ? memoryQueues.get(db) : fileQueues.get(file)) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = before.then(() => mine);
  if (file === null) memoryQueues.set(db, tail);
  else fileQueues.set(file, tail);
  await before;
  return () => {
    done();
    if (file !== null && fileQueues.get(file) === tail) fileQueues.delete(file);
  };
}

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
  const done = await takeTurn(db);
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
