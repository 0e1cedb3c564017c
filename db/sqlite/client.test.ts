import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isBusy, openDb, WAL_SIZE_LIMIT } from "./client";

describe("isBusy", () => {
  it.each<[string, unknown, boolean]>([
    ["SQLITE_BUSY", { code: "SQLITE_BUSY" }, true],
    ["an extended busy code (stale WAL snapshot)", { code: "SQLITE_BUSY_SNAPSHOT" }, true],
    ["SQLITE_LOCKED", { code: "SQLITE_LOCKED" }, true],
    ["a constraint error", { code: "SQLITE_CONSTRAINT_PRIMARYKEY" }, false],
    ["an error without a code", new Error("x"), false],
    ["null", null, false],
    ["a numeric code", { code: 5 }, false],
  ])("%s → %s", (_name, err, expected) => {
    expect(isBusy(err)).toBe(expected);
  });
});

describe("openDb: the WAL file", () => {
  it("is cut back to WAL_SIZE_LIMIT once a checkpoint lets a writer wrap it, after a burst grew it past the limit", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-wal-"));
    const file = path.join(dir, "db.sqlite");
    const db = openDb(file);
    try {
      const c = db.$client;
      c.pragma("wal_autocheckpoint = 0");
      c.exec("CREATE TABLE burst (b BLOB)");
      const insert = c.prepare("INSERT INTO burst (b) VALUES (?)");
      c.transaction(() => {
        for (let i = 0; i < 40; i++) insert.run(Buffer.alloc(1024 * 1024, i));
      })();
      const wal = () => fs.statSync(`${file}-wal`).size;
      expect(wal()).toBeGreaterThan(2 * WAL_SIZE_LIMIT);
      c.pragma("wal_checkpoint(PASSIVE)");
      insert.run(Buffer.alloc(16, 1));
      expect(wal()).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    } finally {
      db.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
