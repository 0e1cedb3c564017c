import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLease, releaseLease, replaceLease } from "../../db/store/leases";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { liveLease } from "./leader";

// Lease rows, written once and run on each engine (leader.test.ts: SQLite; leader.pg.test.ts: PostgreSQL).

const T = 1_800_000_000_000;

export function leaseRowCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`lease rows on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    it("of two processes that read the same row and write their claim, exactly one wins", async () => {
      const { a, b } = s;
      expect(await replaceLease(a, "x", null, { holder: "a", since: T, expiresAt: T + 10 })).toBe(true);
      expect(await replaceLease(b, "x", null, { holder: "b", since: T, expiresAt: T + 10 })).toBe(false);
      const seen = (await readLease(b, "x"))!;
      const [wa, wb] = await Promise.all([
        replaceLease(a, "x", seen, { holder: "a", since: T + 20, expiresAt: T + 30 }),
        replaceLease(b, "x", seen, { holder: "b", since: T + 20, expiresAt: T + 30 }),
      ]);
      expect([wa, wb].filter(Boolean)).toHaveLength(1);
      expect(await readLease(a, "x")).toEqual({ holder: wa ? "a" : "b", since: T + 20, expiresAt: T + 30 });
      expect(await replaceLease(a, "x", seen, { holder: "a", since: T + 40, expiresAt: T + 50 })).toBe(false);
    });

    it("only the holder releases a lease; leases are independent by name", async () => {
      const { a, b } = s;
      await replaceLease(a, "x", null, { holder: "a", since: T, expiresAt: T + 10 });
      await replaceLease(b, "y", null, { holder: "b", since: T, expiresAt: T + 10 });
      expect(await releaseLease(a, "x", "b")).toBe(false);
      expect(await releaseLease(a, "x", "a")).toBe(true);
      expect(await releaseLease(a, "x", "a")).toBe(false);
      expect(await readLease(b, "x")).toBeNull();
      expect((await readLease(a, "y"))?.holder).toBe("b");
    });

    it("liveLease shows a lease until it expires by the store's clock", async () => {
      const { a, b } = s;
      const now = await a.clock();
      await replaceLease(a, "background", null, { holder: "a", since: now, expiresAt: now + 60_000 });
      await replaceLease(a, "expired", null, { holder: "a", since: now - 20_000, expiresAt: now - 1 });
      expect((await liveLease(b))?.holder).toBe("a");
      expect(await liveLease(b, "expired")).toBeNull();
      expect(await liveLease(b, "never-taken")).toBeNull();
    });

    it("the store's clock is Unix ms and agrees across connections", async () => {
      const [ca, cb] = [await s.a.clock(), await s.b.clock()];
      expect(Number.isInteger(ca)).toBe(true);
      expect(Math.abs(ca - Date.now())).toBeLessThan(60_000);
      expect(cb - ca).toBeGreaterThanOrEqual(0);
      expect(cb - ca).toBeLessThan(5_000);
    });
  });
}
