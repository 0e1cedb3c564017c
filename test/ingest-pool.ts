import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { openDb } from "../db/sqlite/client";
import { IngestPool } from "../server/ingest/worker-pool";

/**
 * For one test file: a migrated SQLite file in a temporary folder with an IngestPool of `threads` on it, made before
 * its tests and closed and removed after them. Read `file` and `pool` inside tests (they are set by then).
 */
export function useIngestPool(prefix: string, threads = 2): { readonly file: string; readonly pool: IngestPool } {
  let dir = "";
  let file = "";
  let pool: IngestPool | null = null;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    file = path.join(dir, "db.sqlite");
    openDb(file).$client.close();
    pool = new IngestPool(file, threads);
  });
  afterAll(async () => {
    await pool?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get file() {
      return file;
    },
    get pool() {
      if (!pool) throw new Error("useIngestPool: read the pool inside a test");
      return pool;
    },
  };
}
