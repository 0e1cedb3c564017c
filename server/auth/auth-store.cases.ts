import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../db/store/store";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { requestActor } from "./request";
import { endSession, SESSION_COOKIE, sessionActor, startSession } from "./sign-in-sessions";
import { tokenActor } from "./tokens";
import { digestHex } from "./secrets";

// Sessions and API-token checks over the store, written once and run on each engine (rate-limit.test.ts: SQLite;
// auth.pg.test.ts: PostgreSQL). `a` and `b` are two processes sharing one database. The sign-in limit's cases are in
// login-limit.cases.ts.

const T = 1_800_000_000_000;

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

export function authStoreCases(e: StoreEngine): void {
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
