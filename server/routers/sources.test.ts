import { describe, expect, it } from "vitest";
import { SQLITE_PAGES } from "../../test/page-stores";
import { testCaller } from "../../test/db";
import { sourcesCases } from "./sources.cases";

// The sources procedures on SQLite; the same cases run on PostgreSQL in sources.pg.test.ts.

const NOW = 1_764_400_000_000;

sourcesCases(SQLITE_PAGES);

describe("sources.storage on a SQLite file", () => {
  it("reports the file and WAL sizes", async () => {
    const { insertEvents } = await import("../../db/sqlite/ingest");
    const { minimal, parsed, T0 } = await import("../../test/events");
    const fs = await import("node:fs");
    const os = await import("node:os");
    const path = await import("node:path");
    const { openDb } = await import("../../db/sqlite/client");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-storage-"));
    const db = openDb(path.join(dir, "s.db"));
    try {
      insertEvents(db, [
        parsed(minimal.request({ id: "r1", ts: T0 + 5, arrived_at: T0 })),
        parsed(minimal["kv.stored"]({ id: "k1", ts: T0 + 1_000 })),
      ]);
      const s = await testCaller(db, () => NOW).sources.storage();
      expect(s.fileBytes + s.walBytes).toBe(s.totalBytes);
      expect(s.totalBytes).toBe(
        fs.statSync(path.join(dir, "s.db")).size + fs.statSync(path.join(dir, "s.db-wal")).size,
      );
      expect(s.totalBytes).toBeGreaterThan(0);
    } finally {
      db.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
