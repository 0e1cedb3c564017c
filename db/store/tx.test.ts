import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openDb } from "../sqlite/client";
import { testDb } from "../../test/db";
import { SQLITE } from "../../test/stores";
import { sqliteStore } from "./store";
import { txCases } from "./tx.cases";

// store.tx on SQLite: the shared cases, and what only SQLite's one connection shows (transactions queued in turn).

txCases(SQLITE);

describe("store.tx on one SQLite connection", () => {
  it("runs concurrent transactions one after another, never interleaved", async () => {
    const s = sqliteStore(testDb());
    const steps: string[] = [];
    const run = (name: string) =>
      s.tx(async () => {
        steps.push(`${name} begins`);
        await new Promise((r) => setImmediate(r));
        await Promise.resolve();
        steps.push(`${name} ends`);
        return name;
      });
    expect(await Promise.all([run("a"), run("b"), run("c")])).toEqual(["a", "b", "c"]);
    expect(steps).toEqual(["a begins", "a ends", "b begins", "b ends", "c begins", "c ends"]);
  });

  it("a transaction that fails to begin or throws does not hold up the next one", async () => {
    const db = testDb();
    const s = sqliteStore(db);
    db.$client.exec("BEGIN");
    await expect(s.tx(async () => 1)).rejects.toThrow(/within a transaction/);
    db.$client.exec("ROLLBACK");
    await expect(s.tx(async () => Promise.reject(new Error("no")))).rejects.toThrow("no");
    expect(await s.tx(async () => 2)).toBe(2);
    expect(db.$client.inTransaction).toBe(false);
  });

  it("waits for another connection's write lock without blocking the thread, then commits", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tx-lock-"));
    const file = path.join(dir, "lock.db");
    const [a, b] = [openDb(file), openDb(file)];
    try {
      const s = sqliteStore(a);
      a.$client.exec("CREATE TABLE lock_probe (x INTEGER)");
      b.$client.exec("BEGIN IMMEDIATE");
      // The lock is released by a timer: it can only fire while the transaction below waits on the event loop (a
      // BEGIN IMMEDIATE blocked in SQLite's busy handler would fail busy after busy_timeout, the timer unfired).
      let released = 0;
      setTimeout(() => {
        b.$client.exec("COMMIT");
        released = performance.now();
      }, 100);
      const began = performance.now();
      await s.tx(async () => {
        a.$client.exec("INSERT INTO lock_probe VALUES (1)");
      });
      expect(released).toBeGreaterThan(began);
      expect(a.$client.prepare("SELECT count(*) AS n FROM lock_probe").get()).toEqual({ n: 1 });
      expect(a.$client.pragma("busy_timeout", { simple: true })).toBe(5_000);
    } finally {
      if (b.$client.inTransaction) b.$client.exec("ROLLBACK");
      a.$client.close();
      b.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("holds the write lock from the start (BEGIN IMMEDIATE): a write inside never waits for another writer mid-way", async () => {
    const db = testDb();
    const s = sqliteStore(db);
    await s.tx(async () => {
      expect(db.$client.inTransaction).toBe(true);
    });
    expect(db.$client.inTransaction).toBe(false);
  });
});
