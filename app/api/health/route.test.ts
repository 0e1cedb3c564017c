import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SESSION_COOKIE } from "@/server/auth/constants";
import type { TokenScope } from "@/server/auth/roles";
import { log } from "@/server/observability/logger";

let dir: string;
let file: string;
let GET: typeof import("./route").GET;
let serverEngine: typeof import("@/server/runtime").serverEngine;
let serverStore: typeof import("@/server/runtime").serverStore;
const tokens = {} as Record<TokenScope, string>;
let cookie = "";
const saved = process.env.SWITCHYARD_DB;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "switchyard-health-"));
  file = path.join(dir, "nested", "switchyard.db");
  process.env.SWITCHYARD_DB = file;
  ({ GET } = await import("./route"));
  ({ serverEngine, serverStore } = await import("@/server/runtime"));
  const { createToken } = await import("@/server/auth/tokens");
  const { startSession } = await import("@/server/auth/sign-in-sessions");
  const { insertUser } = await import("@/db/store/accounts");
  for (const scope of ["ingest", "read", "operate", "admin"] as const)
    tokens[scope] = (await createToken(serverStore(), { name: scope, scope, createdBy: "test" }, Date.now())).token;
  const viewer = await insertUser(serverStore(), { username: "v", role: "viewer", passwordHash: null }, Date.now());
  cookie = `${SESSION_COOKIE}=${(await startSession(serverStore(), viewer, Date.now(), 60_000)).value}`;
});

afterAll(async () => {
  if (saved === undefined) delete process.env.SWITCHYARD_DB;
  else process.env.SWITCHYARD_DB = saved;
  await rm(dir, { recursive: true, force: true });
});

const get = (headers: Record<string, string> = {}) => GET(new Request("http://localhost/api/health", { headers }));
const asRead = () => get({ authorization: `Bearer ${tokens.read}` });

describe("GET /api/health", () => {
  it.each<[string, () => Record<string, string>]>([
    ["no credentials", () => ({})],
    ["an unknown token", () => ({ authorization: "Bearer sy_read_not-a-token" })],
    ["an ingest-only token", () => ({ authorization: `Bearer ${tokens.ingest}` })],
    ["a stale session cookie", () => ({ cookie: `${SESSION_COOKIE}=gone` })],
  ])("answers %s with exactly {status}", async (_, headers) => {
    const res = await get(headers());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it.each<[string, () => Record<string, string>]>([
    ["a read token", () => ({ authorization: `Bearer ${tokens.read}` })],
    ["an operate token", () => ({ authorization: `Bearer ${tokens.operate}` })],
    ["an admin token", () => ({ authorization: `Bearer ${tokens.admin}` })],
    ["a signed-in viewer", () => ({ cookie })],
  ])("shows %s the database ok and the applied schema version", async (_, headers) => {
    const res = await get(headers());
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      database: string;
      schema: { migrations: number; latest: string | null };
    };
    expect(body).toMatchObject({ status: "ok", database: "ok", engine: "sqlite" });
    expect(body.schema.migrations).toBeGreaterThanOrEqual(1);
    expect(body.schema.latest).toMatch(/^\d{4}_/);
    expect(fs.existsSync(file)).toBe(true);
    expect(body).toMatchObject({ leader: null, process: null });
  });

  it("says which process leads background work and whether it is this one", async () => {
    const { startLeader } = await import("@/server/jobs/leader");
    const { readLease, replaceLease } = await import("@/db/store/leases");
    const store = serverStore();
    type Body = { leader: { holder: string; since: number; this_process: boolean } | null; process: unknown };
    const before = Date.now();
    const leader = startLeader(store, () => () => {}, { holder: "host-a:1:0a0b0c0d" });
    // The first look at the lease is asynchronous (the store's API is): wait for it.
    await vi.waitFor(() => expect(leader.leading()).toBe(true));
    expect(await (await get()).json()).toEqual({ status: "ok" });
    const mine = (await (await asRead()).json()) as Body;
    expect(mine.leader).toEqual({ holder: "host-a:1:0a0b0c0d", since: expect.any(Number), this_process: true });
    expect(mine.leader!.since).toBeGreaterThanOrEqual(before);
    expect(mine.process).toEqual({ id: "host-a:1:0a0b0c0d", leading: true });
    await leader.stop();
    expect(((await (await asRead()).json()) as Body).leader).toBeNull();
    // Another process took the lease: it is named, and this process is not the leader.
    await replaceLease(store, "background", await readLease(store, "background"), {
      holder: "host-b:2:0a0b0c0d",
      since: before,
      expiresAt: Date.now() + 60_000,
    });
    const theirs = (await (await asRead()).json()) as Body;
    expect(theirs.leader).toEqual({ holder: "host-b:2:0a0b0c0d", since: before, this_process: false });
    expect(theirs.process).toEqual({ id: "host-a:1:0a0b0c0d", leading: false });
  });

  it("answers 503 with only {status} when the database does not answer, with or without a token", async () => {
    const error = vi.spyOn(log(), "error").mockImplementation(() => {});
    serverEngine().db!.$client.close();
    for (const res of [await get(), await asRead()]) {
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: "error" });
    }
    // The reason goes to the server's log (JSON, at error level), never into the answer.
    expect(error).toHaveBeenCalledWith({ err: expect.stringMatching(/not open|closed/i) }, "health check failed");
    error.mockRestore();
  });
});
