import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { sqliteStore } from "../../db/store/store";
import { revokeToken } from "../../db/store/accounts";
import { userByName } from "../../db/store/auth";
import { createCaller } from "../trpc/root";
import { ensureDemoAdmin } from "./accounts";
import { mutationAllowed, type OriginHeaders } from "./origin";
import { satisfies, scopeRole } from "./roles";
import { hashPassword, verifyPassword } from "./secrets";
import { endSession, readCookie, sessionActor, sessionCookie, startSession } from "./sign-in-sessions";
import { createToken, tokenActor } from "./tokens";

// Passwords, sessions, token scopes, origins and roles. Accounts, links and the start-up token steps run on both
// engines in accounts.cases.ts.

const T = 1_800_000_000_000;
const PW = "correct horse battery";

describe("passwords", () => {
  it("scrypt with a per-user salt: same password, different hashes, both verify", async () => {
    const [a, b] = [await hashPassword(PW), await hashPassword(PW)];
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(PW);
    expect(await verifyPassword(PW, a)).toBe(true);
    expect(await verifyPassword(PW, b)).toBe(true);
  });

  it.each([["wrong password"], [""], [`${PW} `]])("refuses %j", async (pw) => {
    expect(await verifyPassword(pw, await hashPassword(PW))).toBe(false);
  });

  it.each([[null], [""], ["plain"], ["scrypt$1$2$3"], ["bcrypt$a$b$c$d$e"]])(
    "a malformed stored hash %j never verifies",
    async (stored) => {
      expect(await verifyPassword(PW, stored)).toBe(false);
    },
  );
});

describe("sessions", () => {
  it("a session works until it expires or logs out; only its digest is stored", async () => {
    const db = testDb();
    await ensureDemoAdmin(sqliteStore(db), "boss", PW, T);
    const boss = (await userByName(sqliteStore(db), "boss"))!.id;
    const s = await startSession(sqliteStore(db), boss, T, 1000);
    expect(await sessionActor(sqliteStore(db), s.value, T + 999)).toMatchObject({
      kind: "user",
      name: "boss",
      role: "admin",
    });
    expect(await sessionActor(sqliteStore(db), s.value, T + 1000)).toBeNull();
    const stored = db.$client.prepare("SELECT id FROM auth_sessions").pluck().all() as string[];
    expect(stored.join()).not.toContain(s.value);
    const s2 = await startSession(sqliteStore(db), boss, T, 1000);
    await endSession(sqliteStore(db), s2.value);
    expect(await sessionActor(sqliteStore(db), s2.value, T + 1)).toBeNull();
    expect(await sessionActor(sqliteStore(db), "sys_forged", T)).toBeNull();
    expect(await sessionActor(sqliteStore(db), "x".repeat(5000), T)).toBeNull();
  });

  it("the cookie is httpOnly and SameSite=Lax, Secure only behind https", () => {
    expect(sessionCookie("v", T, false)).toMatch(/^sy_session=v; Path=\/; HttpOnly; SameSite=Lax; Expires=.+GMT$/);
    expect(sessionCookie("v", T, true)).toMatch(/; Secure$/);
    expect(readCookie("a=1; sy_session=abc; b=2", "sy_session")).toBe("abc");
    expect(readCookie("xsy_session=abc", "sy_session")).toBeNull();
  });
});

describe("tokens", () => {
  it.each([
    ["ingest", null],
    ["read", "viewer"],
    ["operate", "operator"],
    ["admin", "admin"],
  ] as const)("scope %s acts as %s", (scope, role) => {
    expect(scopeRole(scope)).toBe(role);
  });

  it("stored hashed, usable through the API by scope, recorded when used, dead once revoked", async () => {
    const db = testDb();
    const read = await createToken(sqliteStore(db), { name: "script", scope: "read", createdBy: "t" }, T);
    expect((db.$client.prepare("SELECT digest FROM api_tokens").pluck().all() as string[]).join()).not.toContain(
      read.token,
    );
    const api = async (token: string) =>
      createCaller({ store: sqliteStore(db), now: () => T, actor: await tokenActor(sqliteStore(db), token, T) });
    await expect(
      (await api(read.token)).sessions.list({ range: { from: T - 1000, to: T } } as never),
    ).resolves.toBeDefined();
    await expect((await api(read.token)).users.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    const publish = { kind: "retention", document: {}, baseVersion: null } as never;
    await expect((await api(read.token)).policies.publish(publish)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(db.$client.prepare("SELECT last_used_at FROM api_tokens WHERE id = ?").pluck().get(read.id)).toBe(T);
    const ingest = await createToken(sqliteStore(db), { name: "sender", scope: "ingest", createdBy: "t" }, T);
    expect(await tokenActor(sqliteStore(db), ingest.token, T)).toBeNull();
    await revokeToken(sqliteStore(db), read.id, T + 1);
    expect(await tokenActor(sqliteStore(db), read.token, T + 2)).toBeNull();
    await expect((await api(read.token)).overview.summary({} as never)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("same-origin mutations", () => {
  const base: OriginHeaders = {
    method: "POST",
    origin: null,
    host: "localhost:3000",
    forwardedHost: null,
    secFetchSite: null,
    authorization: null,
  };
  it.each<[string, Partial<OriginHeaders>, boolean]>([
    ["GET from anywhere", { method: "GET", origin: "https://evil.example" }, true],
    ["POST from the same origin", { origin: "http://localhost:3000" }, true],
    ["POST from another origin", { origin: "https://evil.example" }, false],
    ["POST from another port", { origin: "http://localhost:3001" }, false],
    ["POST from an opaque origin", { origin: "null" }, false],
    ["POST with a malformed origin", { origin: "::::" }, false],
    ["POST marked cross-site without origin", { secFetchSite: "cross-site", authorization: "Bearer t" }, false],
    ["POST by a script with a bearer token", { authorization: "Bearer sy_read_x" }, true],
    ["POST by a non-browser client without origin", {}, true],
    ["POST marked same-site (a sibling subdomain) without origin", { secFetchSite: "same-site" }, false],
    [
      "POST behind a proxy naming the host",
      { origin: "https://ops.example", host: "127.0.0.1:3000", forwardedHost: "ops.example" },
      true,
    ],
  ])("%s → %s", (_name, h, ok) => {
    expect(mutationAllowed({ ...base, ...h })).toBe(ok);
  });
});

describe("role order", () => {
  it.each([
    ["viewer", "viewer", true],
    ["viewer", "operator", false],
    ["operator", "operator", true],
    ["operator", "admin", false],
    ["admin", "operator", true],
    [null, "viewer", false],
    [null, "public", true],
  ] as const)("%s meets %s: %s", (role, need, ok) => {
    expect(satisfies(role, need)).toBe(ok);
  });
});
