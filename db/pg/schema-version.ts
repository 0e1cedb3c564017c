import fs from "node:fs";
import path from "node:path";
import { PG_MIGRATIONS_FOLDER, type PgDb } from "./client";

/** PostgreSQL's applied schema, as SQLite's schemaVersion: migrations applied and the newest one's tag. */
export async function pgSchemaVersion(pg: PgDb): Promise<{ migrations: number; latest: string | null }> {
  const [row] = await pg.$client<{ n: number }[]>`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`;
  const journal = JSON.parse(fs.readFileSync(path.join(PG_MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  const n = row?.n ?? 0;
  return { migrations: n, latest: journal.entries[n - 1]?.tag ?? null };
}
