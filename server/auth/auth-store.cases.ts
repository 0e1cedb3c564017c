import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { insertLoginFailures } from "../../db/store/auth";
import type { Store } from "../../db/store/store";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { LoginLimiter, pruneLoginFailures } from "./rate-limit";
import { requestActor } from "./request";
import { endSession, SESSION_COOKIE, sessionActor, startSession } from "./sessions";
import { tokenActor } from "./tokens";
import { digestHex } from "./secrets";

// Sign-in limits, sessions and API-token checks over the store, written once and run on each engine
// (rate-limit.test.ts: SQLite; auth.pg.test.ts: PostgreSQL). `a` and `b` are two processes sharing one database.

const T = 1_800_000_000_000;
const cfg = { windowMs: 60_000, perAccount: 3, perAddress: 5 };

const addUser = async (s: Store, username: string, disabled = false) =>
  (
    await s.db
      .insert(s.t.users)
      .values({ username, role: "operator", passwordHash: null, disabled, createdAt: T })
      .returning({ id: s.t.users.id })
  )[0]!.id;

const addToken = async (s: Store, token: string, scope: string) =>
  (
    await s.db
      .insert(s.t.apiTokens)
      .values({ name: `${scope} token`, scope, digest: digestHex(token), hint: "…", createdBy: "t", createdAt: T })
      .returning({ id: s.t.apiTokens.id })
  )[0]!.id;

const failureRows = async (s: Store) =>
  (await s.db.select().from(s.t.loginFailures)).map((r) => `${r.key}@${r.at - T}x${r.n}`).sort();

export function authStoreCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`sign-in limits on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    it("a limit holds across processes sharing the database: failures on either count for both", async () => {
      const [la, lb] = [new LoginLimiter(s.a, cfg), new LoginLimiter(s.b, cfg)];
      await la.fail("ann", "10.0.0.1", T);
      await lb.fail("ann", "10.0.0.2", T + 1);
      expect(await la.check("ann", "10.0.0.3", T + 2)).toBeNull();
      await la.fail("ann", "10.0.0.3", T + 2);
      expect((await lb.check("ann", "10.0.0.4", T + 3))?.message).toMatch(/for this account/);
      expect((await la.check("ann", "10.0.0.4", T + 3))?.retryAfter).toBe(60);
      // A success on one process clears the account on the other.
      await lb.succeed("ann");
      expect(await la.check("ann", "10.0.0.4", T + 4)).toBeNull();
    });

    it("failures sent at once by both processes in the same millisecond all count", async () => {
      const [la, lb] = [new LoginLimiter(s.a, cfg), new LoginLimiter(s.b, cfg)];
      await Promise.all([la.fail("ann", "x", T), lb.fail("ann", "x", T), la.fail("ann", "x", T)]);
      expect(await failureRows(s.b)).toEqual(["a:ann@0x3", "i:x@0x3"]);
      expect((await lb.check("ann", "y", T))?.message).toMatch(/for this account/);
    });

    it("locks an account after 3 failures from anywhere, for the rest of the window", async () => {
      const l = new LoginLimiter(s.a, cfg);
      for (let i = 0; i < 3; i++) {
        expect(await l.check("ann", `10.0.0.${i}`, T + i)).toBeNull();
        await l.fail("ann", `10.0.0.${i}`, T + i);
      }
      expect((await l.check("ann", "10.0.0.9", T + 10))?.message).toBe(
        "Too many failed sign-in attempts for this account. Try again in 1 minute.",
      );
      expect(await l.check("bob", "10.0.0.9", T + 10)).toBeNull();
      expect(await l.check("ann", "10.0.0.9", T + 60_001)).toBeNull();
    });

    it("locks an address after 5 failures across accounts", async () => {
      const l = new LoginLimiter(s.a, cfg);
      for (let i = 0; i < 5; i++) await l.fail(`user${i}`, "10.0.0.1", T);
      expect((await l.check("someone", "10.0.0.1", T))?.message).toMatch(/for your address/);
      expect(await l.check("someone", "10.0.0.2", T)).toBeNull();
    });

    it("a success clears the account's count, not the address's", async () => {
      const l = new LoginLimiter(s.a, cfg);
      await l.fail("ann", "a", T);
      await l.fail("ann", "a", T);
      await l.succeed("ann");
      await l.fail("ann", "a", T);
      expect(await l.check("ann", "b", T)).toBeNull();
      expect(await failureRows(s.a)).toEqual(["a:ann@0x1", "i:a@0x3"]);
    });

    it("a failure drops its keys' failures that left the window; housekeeping drops everyone's", async () => {
      const l = new LoginLimiter(s.a, cfg);
      await l.fail("ann", "a", T);
      await l.fail("bob", "b", T);
      await l.fail("ann", "a", T + cfg.windowMs + 1);
      const later = cfg.windowMs + 1;
      expect(await failureRows(s.a)).toEqual([`a:ann@${later}x1`, "a:bob@0x1", `i:a@${later}x1`, "i:b@0x1"]);
      expect(await pruneLoginFailures(s.b, T + cfg.windowMs + 1, cfg)).toBe(2);
      expect(await failureRows(s.a)).toHaveLength(2);
      expect(await pruneLoginFailures(s.b, T + cfg.windowMs + 1, cfg)).toBe(0);
    });

    it.each([
      ["no keys", [], []],
      ["the same key twice", ["a:ann", "a:ann"], ["a:ann@0x1"]],
    ])("a failure under %s counts each key once", async (_, keys, want) => {
      await insertLoginFailures(s.a, keys, T, T - cfg.windowMs);
      expect(await failureRows(s.b)).toEqual(want);
    });

    it("a failure exactly one window old no longer counts", async () => {
      const l = new LoginLimiter(s.a, cfg);
      for (let i = 0; i < 3; i++) await l.fail("ann", "a", T);
      expect(await l.check("ann", "a", T + cfg.windowMs - 1)).not.toBeNull();
      expect(await l.check("ann", "a", T + cfg.windowMs)).toBeNull();
    });
  });

  describe.skipIf(e.skip)(`sessions and API-token checks on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    it("a session started on one process works on the other until it expires or logs out; only its digest is stored", async () => {
      const id = await addUser(s.a, "olga");
      const session = await startSession(s.a, id, T, 1000);
      expect(await sessionActor(s.b, session.value, T + 999)).toEqual({
        kind: "user",
        id,
        name: "olga",
        role: "operator",
      });
      expect(await sessionActor(s.b, session.value, T + 1000)).toBeNull();
      const stored = (await s.b.db.select().from(s.b.t.authSessions)).map((r) => r.id);
      expect(stored).toEqual([digestHex(session.value)]);
      const second = await startSession(s.b, id, T, 1000);
      await endSession(s.a, second.value);
      expect(await sessionActor(s.b, second.value, T + 1)).toBeNull();
    });

    it.each([
      ["an unknown value", "sys_forged"],
      ["an empty value", ""],
      ["a value too long to be ours", "x".repeat(5000)],
      ["no cookie", null],
    ])("%s is no session", async (_, value) => {
      await addUser(s.a, "olga");
      expect(await sessionActor(s.a, value, T)).toBeNull();
      await endSession(s.a, value);
    });

    it("a disabled user's session is refused", async () => {
      const id = await addUser(s.a, "dora");
      const session = await startSession(s.a, id, T, 60_000);
      await s.b.db.update(s.b.t.users).set({ disabled: true });
      expect(await sessionActor(s.a, session.value, T + 1)).toBeNull();
    });

    it.each([
      ["read", "viewer"],
      ["operate", "operator"],
      ["admin", "admin"],
      ["ingest", null],
      ["no-such-scope", null],
    ] as const)("a token of scope %s acts as %s", async (scope, role) => {
      await addToken(s.a, `tok_${scope}`, scope);
      const actor = await tokenActor(s.b, `tok_${scope}`, T);
      expect(actor?.role ?? null).toBe(role);
      if (role) expect(actor).toMatchObject({ kind: "token", name: `${scope} token` });
    });

    it("a token check records its use at most once a minute, and a revoked token is refused on every process", async () => {
      const id = await addToken(s.a, "tok_read", "read");
      const lastUsed = async () =>
        (await s.a.db.select({ at: s.a.t.apiTokens.lastUsedAt }).from(s.a.t.apiTokens))[0]!.at;
      expect(await lastUsed()).toBeNull();
      await tokenActor(s.b, "tok_read", T);
      expect(await lastUsed()).toBe(T);
      await tokenActor(s.b, "tok_read", T + 59_000);
      expect(await lastUsed()).toBe(T);
      await tokenActor(s.a, "tok_read", T + 61_000);
      expect(await lastUsed()).toBe(T + 61_000);
      await s.a.db.update(s.a.t.apiTokens).set({ revokedAt: T + 62_000 });
      expect(await tokenActor(s.b, "tok_read", T + 63_000)).toBeNull();
      expect(await tokenActor(s.b, "tok_unknown", T)).toBeNull();
      expect(id).toBeGreaterThan(0);
    });

    it("a request's bearer token wins over its session cookie; without either there is no actor", async () => {
      const uid = await addUser(s.a, "olga");
      const session = await startSession(s.a, uid, T, 60_000);
      await addToken(s.a, "tok_admin", "admin");
      const req = (headers: Record<string, string>) => new Request("http://x/api", { headers });
      const cookie = `${SESSION_COOKIE}=${session.value}`;
      expect((await requestActor(s.b, req({ cookie }), T))?.name).toBe("olga");
      expect((await requestActor(s.b, req({ cookie, authorization: "Bearer tok_admin" }), T))?.role).toBe("admin");
      expect(await requestActor(s.b, req({ cookie, authorization: "Bearer tok_nope" }), T)).toBeNull();
      expect(await requestActor(s.b, req({}), T)).toBeNull();
    });
  });
}
