import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "../db/sqlite/client";
import { connectPg } from "../db/pg/client";
import { pgStore, sqliteStore, type Store } from "../db/store/store";
import { freshPg, PG_TEST_URL } from "./pg";

// The engines a store suite runs on: each opens two stores over one new database through separate connections (two
// dashboard processes sharing it), so a table of cases written once runs on SQLite and on PostgreSQL.

/** cutA: close a's connection (a process cut off from the database, or killed); close: both, and drop the database. */
export type TwoStores = { a: Store; b: Store; cutA: () => Promise<void>; close: () => Promise<void> };

export type StoreEngine = { engine: "SQLite" | "PostgreSQL"; skip: boolean; open: () => Promise<TwoStores> };

/** Two connections to one new SQLite file. */
export const SQLITE: StoreEngine = {
  engine: "SQLite",
  skip: false,
  open: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-store-"));
    const file = path.join(dir, "db.sqlite");
    const [x, y] = [openDb(file), openDb(file)];
    return {
      a: sqliteStore(x),
      b: sqliteStore(y),
      cutA: async () => void x.$client.close(),
      close: async () => {
        for (const db of [x, y]) if (db.$client.open) db.$client.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** Two pools on one new database of the test server (skipped without SWITCHYARD_TEST_DATABASE_URL). */
export const POSTGRES: StoreEngine = {
  engine: "PostgreSQL",
  skip: !PG_TEST_URL,
  open: async () => {
    const { pg, url, drop } = await freshPg();
    const other = connectPg(url, { max: 2 });
    return {
      a: pgStore(pg),
      b: pgStore(other),
      cutA: () => pg.$client.end({ timeout: 1 }),
      close: async () => {
        await other.$client.end({ timeout: 5 });
        await drop();
      },
    };
  },
};
