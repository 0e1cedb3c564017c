import "server-only";
import type { Db } from "../../db/client";
import { sqliteStore, type Store } from "../../db/store/store";

/** The store a procedure reads: the context's own (either engine), else the store over its SQLite connection. */
export function storeOf(ctx: { db: Db; store?: Store }): Store {
  return ctx.store ?? sqliteStore(ctx.db);
}
