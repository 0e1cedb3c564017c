import { openDb, type Db } from "../db/client";
import { createCaller } from "../server/trpc/root";

/** A fresh, migrated in-memory database. */
export function testDb(): Db {
  return openDb(":memory:");
}

/** A tRPC caller over a database with a fixed or supplied clock. */
export function testCaller(db: Db, now: () => number = () => Date.now()) {
  return createCaller({ db, now });
}
