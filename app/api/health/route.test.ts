import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

let dir: string;
let file: string;
let GET: typeof import("./route").GET;
let serverDb: typeof import("@/server/runtime").serverDb;
const saved = process.env.SWITCHYARD_DB;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "switchyard-health-"));
  file = path.join(dir, "nested", "switchyard.db");
  process.env.SWITCHYARD_DB = file;
  ({ GET } = await import("./route"));
  ({ serverDb } = await import("@/server/runtime"));
});

afterAll(async () => {
  if (saved === undefined) delete process.env.SWITCHYARD_DB;
  else process.env.SWITCHYARD_DB = saved;
  await rm(dir, { recursive: true, force: true });
});

describe("GET /api/health", () => {
  it("answers 200 with the database ok and the applied schema version", async () => {
    const res = GET();
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      database: string;
      schema: { migrations: number; latest: string | null };
    };
    expect(body).toMatchObject({ status: "ok", database: "ok" });
    expect(body.schema.migrations).toBeGreaterThanOrEqual(1);
    expect(body.schema.latest).toMatch(/^\d{4}_/);
    expect(fs.existsSync(file)).toBe(true);
  });

  it("answers 503 without details when the database does not answer", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    serverDb().$client.close();
    const res = GET();
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "error", database: "unavailable" });
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });
});
