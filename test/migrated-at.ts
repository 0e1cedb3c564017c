import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { MIGRATIONS_FOLDER } from "../db/sqlite/client";

// Database files as a previous release left them, for the migration tests: migrated only up to a given tag.

/** Makes database files migrated up to a tag, each in its own temporary folder; `cleanup` removes them all. */
export function migratedDatabases(): { databaseAt: (tag: string) => string; cleanup: () => void } {
  const dirs: string[] = [];
  return {
    databaseAt(tag) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-migration-"));
      dirs.push(dir);
      const folder = path.join(dir, "migrations");
      fs.cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
      const journalFile = path.join(folder, "meta", "_journal.json");
      const journal = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
      const last = journal.entries.findIndex((e) => e.tag === tag);
      if (last < 0) throw new Error(`no migration tagged ${tag}`);
      journal.entries = journal.entries.slice(0, last + 1);
      fs.writeFileSync(journalFile, JSON.stringify(journal));
      const file = path.join(dir, "old.db");
      const c = new Database(file);
      migrate(drizzle(c), { migrationsFolder: folder });
      c.close();
      return file;
    },
    cleanup: () => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })),
  };
}
