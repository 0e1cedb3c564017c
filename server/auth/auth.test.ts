import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { sqliteStore } from "../../db/store/store";
import { countUsers, listUsers, userByName } from "../../db/queries/auth";
import { createCaller } from "../trpc/root";
import {
  changeUser,
  checkPassword,
  createSetupLink,
  describeLink,
  ensureDemoAdmin,
  inviteUser,
  redeemLink,
  SETUP_LINK_MS,
} from "./accounts";
import { mutationAllowed, type OriginHeaders } from "./origin";
import { satisfies, scopeRole } from "./roles";
import { hashPassword, verifyPassword } from "./secrets";
import { endSession, readCookie, sessionActor, sessionCookie, startSession } from "./sessions";
import { createToken, ensureConfiguredTokens, tokenActor } from "./tokens";
import { listTokens, revokeToken } from "../../db/queries/auth";

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

describe("setup link", () => {
  it("on an empty database: creates the first admin once, then is spent", async () => {
    const db = testDb();
    const secret = createSetupLink(db, T)!;
    expect(describeLink(db, secret, T + 1)).toEqual({ purpose: "setup", username: null });
    const id = await redeemLink(db, { secret, username: "root", password: PW }, T + 2);
    expect(userByName(db, "root")).toMatchObject({ id, role: "admin", disabled: false });
    await expect(redeemLink(db, { secret, username: "again", password: PW }, T + 3)).rejects.toThrow(
      /invalid, expired or already used/,
    );
    expect(countUsers(db)).toBe(1);
    expect(createSetupLink(db, T + 4)).toBeNull();
  });

  it("expires after one hour", async () => {
    const db = testDb();
    const secret = createSetupLink(db, T)!;
    await expect(redeemLink(db, { secret, username: "late", password: PW }, T + SETUP_LINK_MS + 1)).rejects.toThrow(
      /expired/,
    );
    expect(countUsers(db)).toBe(0);
  });

  it("a second setup link is useless once an admin exists", async () => {
    const db = testDb();
    const [first, second] = [createSetupLink(db, T)!, createSetupLink(db, T)!];
    await redeemLink(db, { secret: first, username: "root", password: PW }, T + 1);
    await expect(redeemLink(db, { secret: second, username: "evil", password: PW }, T + 2)).rejects.toThrow(/invalid/);
    expect(listUsers(db).map((u) => u.username)).toEqual(["root"]);
  });

  it("an unknown secret is refused", () => {
    expect(() => describeLink(testDb(), "setup_nope", T)).toThrow(/invalid/);
  });
});

describe("invites, roles and disabling", () => {
  it("an invited user sets a password once and can then sign in", async () => {
    const db = testDb();
    await ensureDemoAdmin(db, "boss", PW, T);
    const { id, secret } = inviteUser(db, { username: "vera", role: "viewer" }, T);
    expect(await checkPassword(sqliteStore(db), "vera", PW)).toBeNull();
    expect(describeLink(db, secret, T)).toEqual({ purpose: "invite", username: "vera" });
    expect(await redeemLink(db, { secret, password: PW }, T + 1)).toBe(id);
    expect(await checkPassword(sqliteStore(db), "vera", PW)).toBe(id);
    await expect(redeemLink(db, { secret, password: "another password" }, T + 2)).rejects.toThrow(/already used/);
    expect(() => inviteUser(db, { username: "vera", role: "admin" }, T)).toThrow(/already exists/);
  });

  it("disabling signs the user out and refuses their password; the last admin stays", async () => {
    const db = testDb();
    await ensureDemoAdmin(db, "boss", PW, T);
    const boss = userByName(db, "boss")!.id;
    const { id } = inviteUser(db, { username: "olga", role: "operator" }, T);
    const s = await startSession(sqliteStore(db), id, T, 3_600_000);
    changeUser(db, id, { disabled: true });
    expect(await sessionActor(sqliteStore(db), s.value, T + 1)).toBeNull();
    expect(() => changeUser(db, boss, { role: "viewer" })).toThrow(/last enabled admin/);
    expect(() => changeUser(db, boss, { disabled: true })).toThrow(/last enabled admin/);
    changeUser(db, id, { disabled: false, role: "admin" });
    changeUser(db, boss, { role: "viewer" });
    expect(userByName(db, "boss")!.role).toBe("viewer");
  });

  it("demo admin: the password of this run works, the previous run's does not", async () => {
    const db = testDb();
    await ensureDemoAdmin(db, "demo", "first-run-password-123", T);
    await ensureDemoAdmin(db, "demo", "second-run-password-456", T);
    expect(await checkPassword(sqliteStore(db), "demo", "first-run-password-123")).toBeNull();
    expect(await checkPassword(sqliteStore(db), "demo", "second-run-password-456")).not.toBeNull();
  });
});

describe("sessions", () => {
  it("a session works until it expires or logs out; only its digest is stored", async () => {
    const db = testDb();
    await ensureDemoAdmin(db, "boss", PW, T);
    const s = await startSession(sqliteStore(db), userByName(db, "boss")!.id, T, 1000);
    expect(await sessionActor(sqliteStore(db), s.value, T + 999)).toMatchObject({
      kind: "user",
      name: "boss",
      role: "admin",
    });
    expect(await sessionActor(sqliteStore(db), s.value, T + 1000)).toBeNull();
    const stored = db.$client.prepare("SELECT id FROM auth_sessions").pluck().all() as string[];
    expect(stored.join()).not.toContain(s.value);
    const s2 = await startSession(sqliteStore(db), userByName(db, "boss")!.id, T, 1000);
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
    const read = createToken(db, { name: "script", scope: "read", createdBy: "t" }, T);
    expect((db.$client.prepare("SELECT digest FROM api_tokens").pluck().all() as string[]).join()).not.toContain(
      read.token,
    );
    const api = async (token: string) =>
      createCaller({ db, now: () => T, actor: await tokenActor(sqliteStore(db), token, T) });
    await expect(
      (await api(read.token)).sessions.list({ range: { from: T - 1000, to: T } } as never),
    ).resolves.toBeDefined();
    await expect((await api(read.token)).users.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    const publish = { kind: "retention", document: {}, baseVersion: null } as never;
    await expect((await api(read.token)).policies.publish(publish)).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(db.$client.prepare("SELECT last_used_at FROM api_tokens WHERE id = ?").pluck().get(read.id)).toBe(T);
    const ingest = createToken(db, { name: "sender", scope: "ingest", createdBy: "t" }, T);
    expect(await tokenActor(sqliteStore(db), ingest.token, T)).toBeNull();
    revokeToken(db, read.id, T + 1);
    expect(await tokenActor(sqliteStore(db), read.token, T + 2)).toBeNull();
    await expect((await api(read.token)).overview.summary({} as never)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("configured tokens", () => {
  const BOOT = "bootstrap-admin-token-0123456789";
  const INGEST = "configured-ingest-token-0123456789";

  it("on an empty database the bootstrap token becomes an admin token; the ingest token an ingest token", async () => {
    const db = testDb();
    ensureConfiguredTokens(db, { ingest: INGEST, bootstrap: BOOT }, true, T);
    expect(await tokenActor(sqliteStore(db), BOOT, T)).toMatchObject({
      kind: "token",
      role: "admin",
      name: "SWITCHYARD_BOOTSTRAP_API_TOKEN",
    });
    expect(await tokenActor(sqliteStore(db), INGEST, T)).toBeNull();
    expect(listTokens(db).map((t) => [t.name, t.scope])).toEqual([
      ["SWITCHYARD_BOOTSTRAP_API_TOKEN", "admin"],
      ["SWITCHYARD_INGEST_TOKEN", "ingest"],
    ]);
    ensureConfiguredTokens(db, { ingest: INGEST, bootstrap: BOOT }, true, T);
    expect(listTokens(db)).toHaveLength(2);
  });

  it("on a database that is already set up the bootstrap token is ignored", async () => {
    const db = testDb();
    ensureConfiguredTokens(db, { bootstrap: BOOT }, false, T);
    expect(await tokenActor(sqliteStore(db), BOOT, T)).toBeNull();
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
