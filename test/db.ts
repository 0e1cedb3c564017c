import { sqliteStore } from "../db/store/store";
import { openDb, type Db } from "../db/sqlite/client";
import type { Actor } from "../server/auth/roles";
import { createCaller } from "../server/trpc/root";

/** A fresh, migrated in-memory database. */
export function testDb(): Db {
  return openDb(":memory:");
}

/** The caller tests act as unless they test authorization: an admin, allowed everything. */
export const TEST_ADMIN: Actor = { kind: "user", id: 1, name: "test-admin", role: "admin" };

/** A tRPC caller over a database with a fixed or supplied clock, acting as actor (an admin by default). */
export function testCaller(db: Db, now: () => number = () => Date.now(), actor: Actor | null = TEST_ADMIN) {
  return createCaller({ store: sqliteStore(db), now, actor });
}
