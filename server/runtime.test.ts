import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// The engine is chosen once from the environment: with SWITCHYARD_DATABASE_URL set the server process opens no SQLite
// file and everything (store, ingest) is PostgreSQL's, connecting lazily; without it, the SQLite file's.

let dir: string;
let runtime: typeof import("./runtime");
let seam: typeof import("./ingest/seam");
const saved = { db: process.env.SWITCHYARD_DB, url: process.env.SWITCHYARD_DATABASE_URL };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-runtime-"));
  process.env.SWITCHYARD_DB = path.join(dir, "never.db");
  process.env.SWITCHYARD_DATABASE_URL = "postgres://sw:pw@127.0.0.1:1/none";
  vi.resetModules();
  runtime = await import("./runtime");
  seam = await import("./ingest/seam");
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

describe("serverEngine", () => {
  it("on PostgreSQL: opens no SQLite file; the store, the ingest and the handle are PostgreSQL's", () => {
    const e = runtime.serverEngine();
    expect(e.engine).toBe("pg");
    expect(e.db).toBeNull();
    expect(e.pg).not.toBeNull();
    expect(runtime.serverStore()).toBe(e.store);
    expect(e.store.engine).toBe("pg");
    expect(e.store.sqlite).toBeNull();
    expect(seam.serverIngest().store).toBe(e.store);
    expect(fs.existsSync(path.join(dir, "never.db"))).toBe(false);
  });

  it("is chosen once: the same handle until the settings change, then the SQLite file's", () => {
    expect(runtime.serverEngine()).toBe(runtime.serverEngine());
    delete process.env.SWITCHYARD_DATABASE_URL;
    vi.resetModules();
    return import("./runtime").then((fresh) => {
      const e = fresh.serverEngine();
      expect(e.engine).toBe("sqlite");
      expect(e.store.sqlite).toBe(e.db);
      expect(e.pg).toBeNull();
      expect(fs.existsSync(path.join(dir, "never.db"))).toBe(true);
      e.db!.$client.close();
    });
  });
});
