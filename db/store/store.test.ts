import { getTableColumns, getTableName, type Table } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { sqliteStore } from "./store";
import { pgTables, sqliteTables } from "./tables";

// The seam's promise: a query written against `store.t` means the same table and columns on either engine (the
// row types are compared by the compiler in tables.ts; the names the SQL will use are compared here).

const shape = (t: Table) => ({
  table: getTableName(t),
  columns: Object.fromEntries(Object.entries(getTableColumns(t)).map(([k, c]) => [k, [c.name, c.notNull]])),
});

describe("store tables", () => {
  it.each(Object.keys(pgTables) as (keyof typeof pgTables)[])(
    "%s has the same table name, columns and nullability on both engines",
    (key) => {
      expect(shape(sqliteTables[key] as Table)).toEqual(shape(pgTables[key] as Table));
    },
  );

  it("one store per SQLite connection: wrapping the same Db again gives the same store", () => {
    const db = testDb();
    expect(sqliteStore(db)).toBe(sqliteStore(db));
    expect(sqliteStore(testDb())).not.toBe(sqliteStore(db));
    expect(sqliteStore(db).engine).toBe("sqlite");
  });

  it("the SQLite store's clock is this process's Unix ms", async () => {
    const before = Date.now();
    const at = await sqliteStore(testDb()).clock();
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});
