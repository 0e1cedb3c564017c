import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { drizzle } from "drizzle-orm/postgres-js";
import { describe, expect, it } from "vitest";
import { PG_MIGRATIONS_FOLDER } from "./client";
import { freshPg, PG_TEST_URL } from "../../test/pg";

// Migration 0008 on a database that already holds requests: each keeps its row and gets a distinct rid, and
// attribution's output tables are there (empty) for the copied or computed causes.

/** The committed migrations up to (not including) the one tagged `before`, as a folder of their own. */
function migrationsBefore(before: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-migrations-"));
  const journal = JSON.parse(fs.readFileSync(path.join(PG_MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  const cut = journal.entries.findIndex((e) => e.tag.startsWith(before));
  expect(cut).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, cut);
  fs.mkdirSync(path.join(dir, "meta"));
  fs.writeFileSync(path.join(dir, "meta", "_journal.json"), JSON.stringify(journal));
  for (const e of journal.entries)
    fs.copyFileSync(path.join(PG_MIGRATIONS_FOLDER, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  return dir;
}

describe.skipIf(!PG_TEST_URL)("pg migration 0008 (attribution's outputs, requests.rid)", () => {
  it("keeps every stored request and numbers each one", async () => {
    const { url, pg, drop } = await freshPg();
    await pg.$client.end({ timeout: 5 });
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // freshPg migrated everything: start again from an empty schema, migrated to just before 0008.
      await sql.unsafe("DROP SCHEMA public CASCADE; CREATE SCHEMA public; DROP SCHEMA IF EXISTS drizzle CASCADE");
      const old = migrationsBefore("0008");
      await migrate(drizzle(sql), { migrationsFolder: old });
      fs.rmSync(old, { recursive: true });
      for (const id of ["a", "b", "c"])
        await sql`INSERT INTO requests (id, ts, request_id, api, model, arrived_at, input_tokens, cached_tokens, output_tokens, status)
          VALUES (${id}, 1, ${`r-${id}`}, 'messages', 'm', 1, 10, 0, 1, 'ok')`;
      await migrate(drizzle(sql), { migrationsFolder: PG_MIGRATIONS_FOLDER });
      const rows = await sql<{ id: string; rid: string }[]>`SELECT id, rid::text AS rid FROM requests ORDER BY id`;
      expect(rows.map((r) => r.id)).toEqual(["a", "b", "c"]);
      expect(new Set(rows.map((r) => r.rid)).size).toBe(3);
      await sql`INSERT INTO requests (id, ts, request_id, api, model, arrived_at, input_tokens, cached_tokens, output_tokens, status)
        VALUES ('d', 1, 'r-d', 'messages', 'm', 1, 10, 0, 1, 'ok')`;
      const [d] = await sql<{ rid: string }[]>`SELECT rid::text AS rid FROM requests WHERE id = 'd'`;
      expect(rows.map((r) => r.rid)).not.toContain(d!.rid);
      for (const table of ["request_causes", "causes_1m", "session_summaries"])
        expect((await sql.unsafe(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n).toBe(0);
    } finally {
      await sql.end({ timeout: 5 });
      await drop().catch(() => undefined);
    }
  });
});
