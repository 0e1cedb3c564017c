import { describe, expect, it } from "vitest";
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

  it("holds the write lock from the start (BEGIN IMMEDIATE): a write inside never waits for another writer mid-way", async () => {
    const db = testDb();
    const s = sqliteStore(db);
    await s.tx(async () => {
      expect(db.$client.inTransaction).toBe(true);
    });
    expect(db.$client.inTransaction).toBe(false);
  });
});
