import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema";
import { SQLITE_CACHE_MB } from "../../lib/memory-bounds";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export const MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "sqlite", "migrations");

/** Bytes the WAL file is cut back to when it is reset (16 MiB: a few ingest write turns). */
export const WAL_SIZE_LIMIT = 16 * 1024 * 1024;

/**
 * Open (creating its folder if missing) and migrate a database file; ":memory:" for tests. busyTimeoutMs bounds how
 * long a write waits for another connection's write lock (better-sqlite3 waits synchronously, blocking its thread).
 */
export function openDb(file: string, busyTimeoutMs = 5_000, cacheMb: number = SQLITE_CACHE_MB.other): Db {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  // FULL: a commit is on disk before ingest replies (durability is part of the ingest contract).
  sqlite.pragma("synchronous = FULL");
  sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  // Ingest batches touch many index pages: a page cache (its size by role, lib/memory-bounds.ts) and rarer checkpoints
  // keep them warm.
  sqlite.pragma(`cache_size = ${-Math.max(1, Math.floor(cacheMb)) * 1024}`);
  sqlite.pragma("wal_autocheckpoint = 8192");
  // A burst (a backlog posted at once, a long read during ingest) grows the WAL file, and SQLite keeps its size for
  // good: without a limit a fresh npm start's folder held a 40 MB WAL beside its database after an hour. The writer
  // that wraps the WAL after a full checkpoint truncates it to this.
  sqlite.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  sqlite.pragma("foreign_keys = ON");
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return db;
}

/** The applied schema version: the number of migrations and the latest one's tag. */
export function schemaVersion(db: Db): { migrations: number; latest: string | null } {
  const row = db.$client.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number };
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  return { migrations: row.n, latest: journal.entries[row.n - 1]?.tag ?? null };
}

const key = Symbol.for("switchyard.db");
type Holder = { [key]?: { file: string; db: Db } };

/**
 * The process-wide connection for a file (shared by the server entry and Next's route bundles). It serves the UI on
 * the event loop, so its writes (background jobs) wait at most 250 ms for the ingest workers' write lock.
 */
export function sharedDb(file: string): Db {
  const holder = globalThis as Holder;
  const current = holder[key];
  if (current && current.file === file) return current.db;
  const db = openDb(file, 250, SQLITE_CACHE_MB.main);
  holder[key] = { file, db };
  return db;
}

/** True for SQLite's "the write lock is held elsewhere" errors (SQLITE_BUSY and its extended codes, SQLITE_LOCKED). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}
