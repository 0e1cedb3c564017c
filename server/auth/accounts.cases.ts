import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../db/sqlite/client";
import { countUsers, listTokens, listUsers } from "../../db/store/accounts";
import { userByName } from "../../db/store/auth";
import type { Store } from "../../db/store/store";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { ensureIngestToken } from "../ingest/token";
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
import type { Actor } from "./roles";
import { digestHex } from "./secrets";
import { sessionActor, startSession } from "./sign-in-sessions";
import { createToken, ensureConfiguredTokens, ingestTokenMatch, tokenActor } from "./tokens";

// Accounts, invitations, one-time links, tokens and the start-up account steps over the store, written once and run
// on each engine (accounts.test.ts: SQLite; accounts.pg.test.ts: PostgreSQL). `a` and `b` are two dashboard
// processes on one database.

const T = 1_800_000_000_000;
const PW = "correct horse battery";
const BOOT = "bootstrap-admin-token-0123456789";
const INGEST = "configured-ingest-token-0123456789";
const ADMIN: Actor = { kind: "user", id: 1, name: "boss", role: "admin" };

/** A caller over the store alone: a procedure still reading ctx.db fails instead of reading another engine's rows. */
const callerOn = (s: Store, actor: Actor | null = ADMIN) => createCaller({ store: s, now: () => T, actor });

export function accountsCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`accounts on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    describe("setup link", () => {
      it("on an empty database: creates the first admin once, then is spent", async () => {
        const secret = (await createSetupLink(s.a, T))!;
        expect(await describeLink(s.b, secret, T + 1)).toEqual({ purpose: "setup", username: null });
        const id = await redeemLink(s.b, { secret, username: "root", password: PW }, T + 2);
        expect(await userByName(s.a, "root")).toMatchObject({ id, role: "admin", disabled: false });
        await expect(redeemLink(s.a, { secret, username: "again", password: PW }, T + 3)).rejects.toThrow(
          /invalid, expired or already used/,
        );
        expect(await countUsers(s.a)).toBe(1);
        expect(await createSetupLink(s.a, T + 4)).toBeNull();
      });

      it("expires after one hour", async () => {
        const secret = (await createSetupLink(s.a, T))!;
        await expect(
          redeemLink(s.a, { secret, username: "late", password: PW }, T + SETUP_LINK_MS + 1),
        ).rejects.toThrow(/expired/);
        expect(await countUsers(s.a)).toBe(0);
      });

      it("a second setup link is useless once an admin exists", async () => {
        const [first, second] = [(await createSetupLink(s.a, T))!, (await createSetupLink(s.b, T))!];
        await redeemLink(s.a, { secret: first, username: "root", password: PW }, T + 1);
        await expect(redeemLink(s.b, { secret: second, username: "evil", password: PW }, T + 2)).rejects.toThrow(
          /invalid/,
        );
        expect((await listUsers(s.a)).map((u) => u.username)).toEqual(["root"]);
      });

      it("one link redeemed by two processes at once makes one admin", async () => {
        const secret = (await createSetupLink(s.a, T))!;
        const both = await Promise.allSettled([
          redeemLink(s.a, { secret, username: "one", password: PW }, T + 1),
          redeemLink(s.b, { secret, username: "two", password: PW }, T + 1),
        ]);
        expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        expect(await countUsers(s.a)).toBe(1);
      });

      it.each<[string, (secret: string) => { secret: string; username?: string; password: string }, RegExp]>([
        ["an unknown secret", () => ({ secret: "setup_nope", username: "x1", password: PW }), /invalid/],
        ["a setup link without a username", (secret) => ({ secret, password: PW }), /username is required/],
        [
          "a common password",
          (secret) => ({ secret, username: "root", password: "password1234" }),
          /^password: too easy to guess: This is similar to a commonly used password\.$/,
        ],
        [
          "the admin's own name with digits",
          (secret) => ({ secret, username: "vexilmorant", password: "vexilmorant88" }),
          /^password: too easy to guess: There should not be any personal or page related data\.$/,
        ],
      ])("refuses %s", async (_name, input, error) => {
        const secret = (await createSetupLink(s.a, T))!;
        await expect(redeemLink(s.a, input(secret), T + 1)).rejects.toThrow(error);
        expect(await countUsers(s.a)).toBe(0);
      });
    });

    describe("invites, roles and disabling", () => {
      it("an invited user sets a password once and can then sign in", async () => {
        await ensureDemoAdmin(s.a, "boss", PW, T);
        const { id, secret } = await inviteUser(s.a, { username: "vera", role: "viewer" }, T);
        expect(await checkPassword(s.b, "vera", PW)).toBeNull();
        expect(await describeLink(s.b, secret, T)).toEqual({ purpose: "invite", username: "vera" });
        expect(await redeemLink(s.b, { secret, password: PW }, T + 1)).toBe(id);
        expect(await checkPassword(s.a, "vera", PW)).toBe(id);
        await expect(redeemLink(s.a, { secret, password: "another password" }, T + 2)).rejects.toThrow(/already used/);
      });

      it("an invite refuses a password built on the invited name (whatever name the form sent); the link stays live", async () => {
        const { secret } = await inviteUser(s.a, { username: "vexilmorant", role: "viewer" }, T);
        await expect(
          redeemLink(s.b, { secret, username: "someone-else", password: "vexilmorant88" }, T + 1),
        ).rejects.toMatchObject({
          code: "BAD_REQUEST",
          message: expect.stringMatching(/^password: too easy to guess/),
        });
        expect(await describeLink(s.a, secret, T + 2)).toEqual({ purpose: "invite", username: "vexilmorant" });
        expect(await checkPassword(s.a, "vexilmorant", "vexilmorant88")).toBeNull();
      });

      it("a duplicate user is a conflict, also when two processes invite the same name at once", async () => {
        await inviteUser(s.a, { username: "vera", role: "viewer" }, T);
        await expect(inviteUser(s.b, { username: "vera", role: "admin" }, T)).rejects.toMatchObject({
          code: "CONFLICT",
          message: "user vera already exists",
        });
        const both = await Promise.allSettled([
          inviteUser(s.a, { username: "olga", role: "viewer" }, T),
          inviteUser(s.b, { username: "olga", role: "viewer" }, T),
        ]);
        expect(both.map((r) => (r.status === "fulfilled" ? "ok" : (r.reason as { code: string }).code)).sort()).toEqual(
          ["CONFLICT", "ok"],
        );
        expect((await listUsers(s.a)).map((u) => [u.username, u.pending])).toEqual([
          ["vera", true],
          ["olga", true],
        ]);
      });

      it("disabling signs the user out and refuses their password; the last admin stays", async () => {
        await ensureDemoAdmin(s.a, "boss", PW, T);
        const boss = (await userByName(s.a, "boss"))!.id;
        const { id } = await inviteUser(s.a, { username: "olga", role: "operator" }, T);
        const session = await startSession(s.a, id, T, 3_600_000);
        await changeUser(s.b, id, { disabled: true });
        expect(await sessionActor(s.a, session.value, T + 1)).toBeNull();
        await expect(changeUser(s.a, boss, { role: "viewer" })).rejects.toThrow(/last enabled admin/);
        await expect(changeUser(s.a, boss, { disabled: true })).rejects.toThrow(/last enabled admin/);
        await expect(changeUser(s.a, 999, { disabled: true })).rejects.toMatchObject({ code: "NOT_FOUND" });
        await changeUser(s.a, id, { disabled: false, role: "admin" });
        await changeUser(s.b, boss, { role: "viewer" });
        expect((await userByName(s.a, "boss"))!.role).toBe("viewer");
      });

      it("two processes demoting the last two admins at once leave one admin", async () => {
        await ensureDemoAdmin(s.a, "boss", PW, T);
        await ensureDemoAdmin(s.a, "chief", PW, T);
        const [boss, chief] = [(await userByName(s.a, "boss"))!.id, (await userByName(s.a, "chief"))!.id];
        // a demotes boss and holds its transaction open while b demotes chief: b must wait for a's outcome.
        let demoted!: () => void;
        let release!: () => void;
        const aDemoted = new Promise<void>((r) => (demoted = r));
        const held = new Promise<void>((r) => (release = r));
        const a = s.a.tx(async (t) => {
          await changeUser(t, boss, { role: "viewer" });
          demoted();
          await held;
        });
        await aDemoted;
        const b = changeUser(s.b, chief, { role: "viewer" }).then(
          () => "demoted",
          (err: { code?: string }) => err.code,
        );
        // Long enough for b to finish if nothing made it wait (it takes a few queries).
        const early = await Promise.race([b, new Promise((r) => setTimeout(() => r("waiting"), 500))]);
        release();
        await a;
        expect([early, await b]).toEqual(["waiting", "CONFLICT"]);
        expect((await listUsers(s.a)).filter((u) => u.role === "admin").map((u) => u.username)).toEqual(["chief"]);
      });

      it("demo admin: the password of this run works, the previous run's does not", async () => {
        await ensureDemoAdmin(s.a, "demo", "first-run-password-123", T);
        await ensureDemoAdmin(s.b, "demo", "second-run-password-456", T);
        expect(await checkPassword(s.a, "demo", "first-run-password-123")).toBeNull();
        expect(await checkPassword(s.a, "demo", "second-run-password-456")).not.toBeNull();
        expect(await countUsers(s.a)).toBe(1);
      });
    });

    describe("the users and tokens routers", () => {
      it("invite, list, set a role and disable through users.*", async () => {
        await ensureDemoAdmin(s.a, "boss", PW, T);
        const api = callerOn(s.a);
        const invited = await api.users.invite({ username: "  Vera ", role: "viewer" });
        expect(invited.path).toMatch(/^\/setup#invite_/);
        await api.users.setRole({ id: invited.id, role: "operator" });
        await api.users.setDisabled({ id: invited.id, disabled: true });
        expect((await callerOn(s.b).users.list()).map((u) => [u.username, u.role, u.disabled, u.pending])).toEqual([
          ["boss", "admin", false, false],
          ["vera", "operator", true, true],
        ]);
      });

      it.each<[string, Record<string, unknown>, string]>([
        ["a short username", { username: "v", role: "viewer" }, "BAD_REQUEST"],
        ["a username with a space", { username: "ve ra", role: "viewer" }, "BAD_REQUEST"],
        ["an unknown role", { username: "vera", role: "root" }, "BAD_REQUEST"],
        ["an existing user", { username: "boss", role: "viewer" }, "CONFLICT"],
      ])("users.invite refuses %s", async (_name, input, code) => {
        await ensureDemoAdmin(s.a, "boss", PW, T);
        await expect(callerOn(s.a).users.invite(input as never)).rejects.toMatchObject({ code });
        expect(await countUsers(s.a)).toBe(1);
      });

      it("create, list and revoke tokens through tokens.*; a revoked token stops at once", async () => {
        const created = await callerOn(s.a).tokens.create({ name: " script ", scope: "read" });
        expect(created.token).toMatch(/^sy_read_/);
        expect(await tokenActor(s.b, created.token, T)).toMatchObject({
          kind: "token",
          name: "script",
          role: "viewer",
        });
        const listed = await callerOn(s.b).tokens.list();
        expect(listed.map((t) => [t.name, t.scope, t.hint, t.createdBy, t.lastUsedAt, t.revokedAt])).toEqual([
          ["script", "read", `…${created.token.slice(-4)}`, "boss", T, null],
        ]);
        expect(JSON.stringify(listed)).not.toContain(created.token);
        await callerOn(s.b).tokens.revoke({ id: created.id });
        expect(await tokenActor(s.a, created.token, T + 1)).toBeNull();
        await expect(callerOn(s.a).tokens.revoke({ id: created.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      });

      it.each<[string, Record<string, unknown>]>([
        ["an empty name", { name: "   ", scope: "read" }],
        ["a name of 65 characters", { name: "x".repeat(65), scope: "read" }],
        ["an unknown scope", { name: "script", scope: "root" }],
      ])("tokens.create refuses %s", async (_name, input) => {
        await expect(callerOn(s.a).tokens.create(input as never)).rejects.toMatchObject({ code: "BAD_REQUEST" });
        expect(await listTokens(s.a)).toEqual([]);
      });

      it.each<[string, number, string]>([
        ["an unknown token", 424242, "NOT_FOUND"],
        ["id 0", 0, "BAD_REQUEST"],
        ["a fractional id", 1.5, "BAD_REQUEST"],
      ])("tokens.revoke refuses %s", async (_name, id, code) => {
        await expect(callerOn(s.a).tokens.revoke({ id })).rejects.toMatchObject({ code });
      });

      it("a viewer may not list users or tokens", async () => {
        const viewer: Actor = { kind: "user", id: 2, name: "v", role: "viewer" };
        await expect(callerOn(s.a, viewer).users.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
        await expect(callerOn(s.a, viewer).tokens.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
      });
    });

    describe("start-up: configured and generated tokens", () => {
      it("on an empty database the bootstrap token becomes an admin token; the ingest token an ingest token", async () => {
        await ensureConfiguredTokens(s.a, { ingest: INGEST, bootstrap: BOOT }, true, T);
        expect(await tokenActor(s.b, BOOT, T)).toMatchObject({
          kind: "token",
          role: "admin",
          name: "SWITCHYARD_BOOTSTRAP_API_TOKEN",
        });
        expect(await tokenActor(s.b, INGEST, T)).toBeNull();
        expect((await listTokens(s.a)).map((t) => [t.name, t.scope])).toEqual([
          ["SWITCHYARD_BOOTSTRAP_API_TOKEN", "admin"],
          ["SWITCHYARD_INGEST_TOKEN", "ingest"],
        ]);
        // A second process starting with the same settings, at the same time or later, adds nothing.
        await Promise.all([
          ensureConfiguredTokens(s.a, { ingest: INGEST, bootstrap: BOOT }, true, T),
          ensureConfiguredTokens(s.b, { ingest: INGEST, bootstrap: BOOT }, true, T),
        ]);
        expect(await listTokens(s.a)).toHaveLength(2);
      });

      it("on a database that is already set up the bootstrap token is ignored", async () => {
        await ensureConfiguredTokens(s.a, { bootstrap: BOOT }, false, T);
        expect(await tokenActor(s.a, BOOT, T)).toBeNull();
      });

      it("a revoked configured token stays revoked across a restart", async () => {
        await ensureConfiguredTokens(s.a, { ingest: INGEST }, true, T);
        const [row] = await listTokens(s.a);
        await callerOn(s.a).tokens.revoke({ id: row!.id });
        await ensureConfiguredTokens(s.b, { ingest: INGEST }, false, T + 1);
        expect(await ingestTokenMatch(s.a, `Bearer ${INGEST}`, INGEST)).toBeNull();
      });

      it("without a configured ingest token one is generated once, stored as its hash, and accepted", async () => {
        const token = await ensureIngestToken(s.a, undefined, T);
        expect(token).toMatch(/^sy_ingest_[A-Za-z0-9_-]{32}$/);
        expect(await ensureIngestToken(s.b, undefined, T + 1)).toBeNull();
        expect(await ingestTokenMatch(s.b, `Bearer ${token}`, undefined)).toBe(digestHex(token!));
        expect(JSON.stringify(await listTokens(s.a))).not.toContain(token!);
      });

      it("with a configured ingest token nothing is generated", async () => {
        expect(await ensureIngestToken(s.a, INGEST, T)).toBeNull();
        expect(await listTokens(s.a)).toEqual([]);
      });

      it("a token kept as a setting before the token table is adopted once, and none is generated", async () => {
        const legacy = digestHex("sy_legacy_token_0123456789abcdef");
        await s.a.db.insert(s.a.t.settings).values({ key: "ingest_token_sha256", value: legacy, updatedAt: T });
        expect(await ensureIngestToken(s.a, undefined, T)).toBeNull();
        expect(await ensureIngestToken(s.b, undefined, T)).toBeNull();
        expect((await listTokens(s.a)).map((t) => [t.name, t.scope])).toEqual([["generated ingest token", "ingest"]]);
        expect(await ingestTokenMatch(s.b, "Bearer sy_legacy_token_0123456789abcdef", undefined)).toBe(legacy);
      });

      it("a token made by createToken is stored hashed", async () => {
        const made = await createToken(s.a, { name: "sender", scope: "ingest", createdBy: "t" }, T);
        expect(await ingestTokenMatch(s.b, `Bearer ${made.token}`, undefined)).toBe(digestHex(made.token));
        const digests = await s.a.db.select({ d: s.a.t.apiTokens.digest }).from(s.a.t.apiTokens);
        expect(digests.map((r) => r.d).join()).not.toContain(made.token);
      });
    });
  });
}
