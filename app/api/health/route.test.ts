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
    const res = await GET();
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
    expect(body).toMatchObject({ leader: null, process: null });
  });

  it("says which process leads background work and whether it is this one", async () => {
    const { startLeader } = await import("@/server/jobs/leader");
    const { readLease, replaceLease } = await import("@/db/store/leases");
    const { sqliteStore } = await import("@/db/store/store");
    const store = sqliteStore(serverDb());
    type Body = { leader: { holder: string; since: number; this_process: boolean } | null; process: unknown };
    const before = Date.now();
    const leader = startLeader(store, () => () => {}, { holder: "host-a:1:0a0b0c0d" });
    // The first look at the lease is asynchronous (the store's API is): wait for it.
    await vi.waitFor(() => expect(leader.leading()).toBe(true));
    const mine = (await (await GET()).json()) as Body;
    expect(mine.leader).toEqual({ holder: "host-a:1:0a0b0c0d", since: expect.any(Number), this_process: true });
    expect(mine.leader!.since).toBeGreaterThanOrEqual(before);
    expect(mine.process).toEqual({ id: "host-a:1:0a0b0c0d", leading: true });
    await leader.stop();
    expect(((await (await GET()).json()) as Body).leader).toBeNull();
    // Another process took the lease: it is named, and this process is not the leader.
    await replaceLease(store, "background", await readLease(store, "background"), {
      holder: "host-b:2:0a0b0c0d",
      since: before,
      expiresAt: Date.now() + 60_000,
    });
    const theirs = (await (await GET()).json()) as Body;
    expect(theirs.leader).toEqual({ holder: "host-b:2:0a0b0c0d", since: before, this_process: false });
    expect(theirs.process).toEqual({ id: "host-a:1:0a0b0c0d", leading: false });
  });

  it("answers 503 without details when the database does not answer", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    serverDb().$client.close();
    const res = await GET();
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "error", database: "unavailable" });
    expect(error).toHaveBeenCalled();
    error.mockRestore();
  });
});
