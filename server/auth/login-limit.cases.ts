import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../db/store/store";
import type { StoreEngine, TwoStores } from "../../test/stores";
import {
  DEFAULT_LIMITS,
  LoginLimiter,
  pruneLoginFailures,
  type Blocked,
  type LoginAttempt,
  type Ticket,
} from "./rate-limit";

// The sign-in limit over the store, written once and run on each engine (rate-limit.test.ts: SQLite;
// login-limit.pg.test.ts: PostgreSQL). `a` and `b` are two dashboard processes sharing one database.

const T = 1_800_000_000_000;
const cfg = { windowMs: 60_000, perAccount: 3, perAddress: 5 };
const DEVICE = "d".repeat(64);

const from = (account: string, address: string, device: string | null = null): LoginAttempt => ({
  account,
  address,
  device,
});

type Reserved = { ticket: Ticket } | { blocked: Blocked };
const ticketOf = (r: Reserved): Ticket => {
  if (!("ticket" in r)) throw new Error(`refused: ${r.blocked.message}`);
  return r.ticket;
};
const refusal = (r: Reserved): Blocked | null => ("blocked" in r ? r.blocked : null);

const rows = async (s: Store) =>
  (await s.db.select().from(s.t.loginFailures)).map((r) => `${r.key}@${r.at - T}x${r.n}`).sort();

/** Sum of the counts under each key, whatever the ms. */
const counts = async (s: Store) => {
  const out: Record<string, number> = {};
  for (const r of await s.db.select().from(s.t.loginFailures)) out[r.key] = (out[r.key] ?? 0) + r.n;
  return out;
};

export function loginLimitCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`sign-in limits on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    it("a limit holds across processes sharing the database; a success on either clears the account", async () => {
      const [la, lb] = [new LoginLimiter(s.a, cfg), new LoginLimiter(s.b, cfg)];
      ticketOf(await la.reserve(from("ann", "10.0.0.1"), T));
      ticketOf(await lb.reserve(from("ann", "10.0.0.2"), T + 1));
      const third = ticketOf(await la.reserve(from("ann", "10.0.0.3"), T + 2));
      expect(refusal(await lb.reserve(from("ann", "10.0.0.4"), T + 3))?.message).toMatch(/for this account/);
      expect(refusal(await la.reserve(from("ann", "10.0.0.4"), T + 3))?.retryAfter).toBe(60);
      await lb.succeed(third);
      ticketOf(await la.reserve(from("ann", "10.0.0.4"), T + 4));
    });

    it("40 attempts on one account sent at once through both processes: exactly 5 are counted, 35 refused", async () => {
      const [la, lb] = [new LoginLimiter(s.a), new LoginLimiter(s.b)];
      const all = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? la : lb).reserve(from("ann", "10.0.0.1"), T + (i % 3))),
      );
      expect(all.filter((r) => "ticket" in r)).toHaveLength(DEFAULT_LIMITS.perAccount);
      expect(all.filter((r) => refusal(r)?.message.includes("for this account"))).toHaveLength(35);
      expect(await counts(s.b)).toEqual({ "a:ann": 5, "i:10.0.0.1": 5 });
    });

    it("60 attempts from one address on 60 accounts sent at once: exactly 20 are counted, 40 refused", async () => {
      const [la, lb] = [new LoginLimiter(s.a), new LoginLimiter(s.b)];
      const all = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? la : lb).reserve(from(`user${i}`, "10.9.9.9"), T)),
      );
      expect(all.filter((r) => "ticket" in r)).toHaveLength(DEFAULT_LIMITS.perAddress);
      expect(all.filter((r) => refusal(r)?.message.includes("for your address"))).toHaveLength(40);
      expect((await counts(s.a))["i:10.9.9.9"]).toBe(20);
    });

    it("locks an account after 3 attempts from anywhere, for the rest of the window", async () => {
      const l = new LoginLimiter(s.a, cfg);
      for (let i = 0; i < 3; i++) ticketOf(await l.reserve(from("ann", `10.0.0.${i}`), T + i));
      expect(refusal(await l.reserve(from("ann", "10.0.0.9"), T + 10))?.message).toBe(
        "Too many failed sign-in attempts for this account. Try again in 1 minute.",
      );
      ticketOf(await l.reserve(from("bob", "10.0.0.9"), T + 10));
      ticketOf(await l.reserve(from("ann", "10.0.0.9"), T + 60_001));
    });

    it("locks an address after 5 attempts across accounts; a refused attempt counts nowhere", async () => {
      const l = new LoginLimiter(s.a, cfg);
      for (let i = 0; i < 5; i++) ticketOf(await l.reserve(from(`user${i}`, "10.0.0.1"), T));
      expect(refusal(await l.reserve(from("someone", "10.0.0.1"), T))?.message).toMatch(/for your address/);
      expect((await counts(s.a))["a:someone"]).toBeUndefined();
      ticketOf(await l.reserve(from("someone", "10.0.0.2"), T));
    });

    it("a success clears the account's count and gives the address its attempt back", async () => {
      const l = new LoginLimiter(s.a, cfg);
      await l.reserve(from("ann", "a"), T);
      await l.reserve(from("ann", "a"), T);
      await l.succeed(ticketOf(await l.reserve(from("ann", "a"), T)));
      expect(await rows(s.b)).toEqual(["i:a@0x2"]);
      await l.reserve(from("ann", "a"), T);
      expect(await rows(s.b)).toEqual(["a:ann@0x1", "i:a@0x3"]);
    });

    it("an attempt drops its keys' attempts that left the window; housekeeping drops everyone's", async () => {
      const l = new LoginLimiter(s.a, cfg);
      await l.reserve(from("ann", "a"), T);
      await l.reserve(from("bob", "b"), T);
      await l.reserve(from("ann", "a"), T + cfg.windowMs + 1);
      const later = cfg.windowMs + 1;
      expect(await rows(s.a)).toEqual([`a:ann@${later}x1`, "a:bob@0x1", `i:a@${later}x1`, "i:b@0x1"]);
      expect(await pruneLoginFailures(s.b, T + cfg.windowMs + 1, cfg)).toBe(2);
      expect(await rows(s.a)).toHaveLength(2);
      expect(await pruneLoginFailures(s.b, T + cfg.windowMs + 1, cfg)).toBe(0);
    });

    it("an attempt exactly one window old no longer counts", async () => {
      const l = new LoginLimiter(s.a, cfg);
      for (let i = 0; i < 3; i++) await l.reserve(from("ann", "a"), T);
      expect(refusal(await l.reserve(from("ann", "a"), T + cfg.windowMs - 1))).not.toBeNull();
      ticketOf(await l.reserve(from("ann", "a"), T + cfg.windowMs));
    });
  });

  describe.skipIf(e.skip)(`a known device's sign-in limit on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    it("signs in to an account someone else locked; its own wrong passwords still count everywhere", async () => {
      const l = new LoginLimiter(s.a, cfg);
      for (let i = 0; i < 3; i++) await l.reserve(from("ann", "6.6.6.6"), T);
      expect(refusal(await l.reserve(from("ann", "10.0.0.1"), T + 1))?.message).toMatch(/for this account/);
      const mine = ticketOf(await l.reserve(from("ann", "10.0.0.1", DEVICE), T + 2));
      await l.reserve(from("ann", "10.0.0.1", DEVICE), T + 3);
      expect(await counts(s.b)).toEqual({ "a:ann": 5, "i:6.6.6.6": 3, "i:10.0.0.1": 2, [`d:${DEVICE}`]: 2 });
      // Its success clears its own count and gives back the attempt: the account stays locked for the others.
      await l.succeed(mine);
      expect(await counts(s.b)).toEqual({ "a:ann": 4, "i:6.6.6.6": 3, "i:10.0.0.1": 1 });
      expect(refusal(await l.reserve(from("ann", "10.0.0.2"), T + 4))?.message).toMatch(/for this account/);
    });

    it("is held to the account's limit of its own: 3 wrong passwords lock the device too", async () => {
      const l = new LoginLimiter(s.a, cfg);
      for (let i = 0; i < 3; i++) ticketOf(await l.reserve(from("ann", "10.0.0.1", DEVICE), T + i));
      expect(refusal(await l.reserve(from("ann", "10.0.0.1", DEVICE), T + 10))?.message).toBe(
        "Too many failed sign-in attempts for this account. Try again in 1 minute.",
      );
      ticketOf(await l.reserve(from("ann", "10.0.0.1", "e".repeat(64)), T + 10));
      ticketOf(await l.reserve(from("ann", "10.0.0.1", DEVICE), T + 60_001));
    });

    it("is not held to its address's limit (one address shared by many behind a proxy)", async () => {
      const l = new LoginLimiter(s.a, cfg);
      for (let i = 0; i < 5; i++) await l.reserve(from(`user${i}`, "10.0.0.1"), T);
      expect(refusal(await l.reserve(from("ann", "10.0.0.1"), T))?.message).toMatch(/for your address/);
      ticketOf(await l.reserve(from("ann", "10.0.0.1", DEVICE), T));
    });

    it("40 attempts from one device sent at once through both processes: exactly 5 are counted", async () => {
      const [la, lb] = [new LoginLimiter(s.a), new LoginLimiter(s.b)];
      const all = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? la : lb).reserve(from("ann", "10.0.0.1", DEVICE), T)),
      );
      expect(all.filter((r) => "ticket" in r)).toHaveLength(DEFAULT_LIMITS.perAccount);
      expect((await counts(s.a))[`d:${DEVICE}`]).toBe(5);
    });
  });
}
