import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AppError } from "./errors";

// With SWITCHYARD_DATABASE_URL set the server process opens no SQLite file: serverDb is a stand-in that refuses every
// use with a client-visible "not available on PostgreSQL yet", and the store is PostgreSQL's (connecting lazily).

let dir: string;
let runtime: typeof import("./runtime");
const saved = { db: process.env.SWITCHYARD_DB, url: process.env.SWITCHYARD_DATABASE_URL };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-runtime-"));
  process.env.SWITCHYARD_DB = path.join(dir, "never.db");
  process.env.SWITCHYARD_DATABASE_URL = "postgres://sw:pw@127.0.0.1:1/none";
  vi.resetModules();
  runtime = await import("./runtime");
});

afterAll(() => {
  for (const [k, v] of [
    ["SWITCHYARD_DB", saved.db],
    ["SWITCHYARD_DATABASE_URL", saved.url],
  ] as const)
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("serverDb on PostgreSQL", () => {
  it.each(["$client", "select", "insert", "transaction", "run", "anything"])(
    "reading db.%s throws the 422 'not available on PostgreSQL yet'",
    (member) => {
      const db = runtime.serverDb() as unknown as Record<string, unknown>;
      let thrown: unknown;
      try {
        void db[member];
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect((thrown as AppError).status).toBe(422);
      expect((thrown as AppError).message).toBe(runtime.NOT_ON_PG);
    },
  );

  it("can be passed around, awaited and used as a map key without throwing", async () => {
    const db = runtime.serverDb();
    expect(await Promise.resolve(db)).toBe(db);
    expect(new WeakMap([[db, 1]]).get(db)).toBe(1);
    expect("select" in db).toBe(false);
  });

  it("opens no SQLite file, and the store and engine are PostgreSQL's", () => {
    runtime.serverDb();
    expect(runtime.serverEngine()).toBe("pg");
    expect(runtime.serverStore().engine).toBe("pg");
    expect(runtime.serverPg()).not.toBeNull();
    expect(fs.existsSync(path.join(dir, "never.db"))).toBe(false);
  });
});
