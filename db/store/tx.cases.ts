import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StoreEngine, TwoStores } from "../../test/stores";
import type { Store } from "./store";

// store.tx written once and run on each engine (tx.test.ts: SQLite; tx.pg.test.ts: PostgreSQL). `a` and `b` are two
// processes (connections, pools) sharing one database; rows are sign-in failures, the smallest table of the seam.

const T = 1_800_000_000_000;

const add = (s: Store, key: string, n = 1) => s.db.insert(s.t.loginFailures).values({ key, at: T, n });
const keys = async (s: Store) => (await s.db.select().from(s.t.loginFailures)).map((r) => r.key).sort();
const countOf = async (s: Store, key: string) =>
  (await s.db.select().from(s.t.loginFailures).where(eq(s.t.loginFailures.key, key)))[0]?.n ?? null;

/** A promise and its resolver, to hold a transaction open at a known point. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  return { opened: new Promise<void>((r) => (open = r)), open };
}

export function txCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`store.tx on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    it("commits what fn wrote and resolves to fn's value", async () => {
      const out = await s.a.tx(async (t) => {
        await add(t, "x");
        await add(t, "y");
        return 42;
      });
      expect(out).toBe(42);
      expect(await keys(s.b)).toEqual(["x", "y"]);
    });

    it.each<[string, (t: Store) => Promise<unknown>, RegExp | string]>([
      [
        "an Error thrown after two writes",
        async (t) => {
          await add(t, "x");
          await add(t, "y");
          throw new Error("refused");
        },
        "refused",
      ],
      [
        "a statement the database refuses (duplicate key) after a write",
        async (t) => {
          await add(t, "x");
          await add(t, "dup");
          await add(t, "dup");
        },
        /./,
      ],
      [
        "a thrown non-Error value",
        async (t) => {
          await add(t, "x");
          throw "plain string";
        },
        "plain string",
      ],
    ])("rolls back everything on %s, and rethrows it", async (_name, fn, error) => {
      await add(s.a, "before");
      const thrown = await s.a.tx(fn).then(
        () => null,
        (err: unknown) => err,
      );
      if (typeof error === "string" && typeof thrown === "string") expect(thrown).toBe(error);
      else expect(String((thrown as Error)?.message ?? thrown)).toMatch(error);
      expect(await keys(s.a)).toEqual(["before"]);
      expect(await keys(s.b)).toEqual(["before"]);
      // The connection is usable afterwards, in and out of a transaction.
      await s.a.tx((t) => add(t, "after"));
      expect(await keys(s.b)).toEqual(["after", "before"]);
    });

    it("another connection sees nothing of an open transaction until it commits", async () => {
      const hold = gate();
      const wrote = gate();
      const done = s.a.tx(async (t) => {
        await add(t, "pending");
        wrote.open();
        await hold.opened;
      });
      await wrote.opened;
      expect(await keys(s.b)).toEqual([]);
      hold.open();
      await done;
      expect(await keys(s.b)).toEqual(["pending"]);
    });

    it("a tx begun inside a tx (through the outer store too) joins it and rolls back with it", async () => {
      const failed = s.a.tx(async (t) => {
        await add(t, "outer");
        await t.tx((u) => add(u, "inner"));
        await s.a.tx((u) => add(u, "through the outer store"));
        expect(await keys(t)).toEqual(["inner", "outer", "through the outer store"]);
        throw new Error("undo all");
      });
      await expect(failed).rejects.toThrow("undo all");
      expect(await keys(s.b)).toEqual([]);
    });

    it("work a transaction left running after it ended begins its own transaction", async () => {
      let later: Promise<unknown> = Promise.resolve();
      const release = gate();
      await s.a.tx(async (t) => {
        await add(t, "first");
        later = release.opened.then(() =>
          s.a.tx(async (u) => {
            await add(u, "late");
            throw new Error("late one fails alone");
          }),
        );
      });
      release.open();
      await expect(later).rejects.toThrow("late one fails alone");
      expect(await keys(s.b)).toEqual(["first"]);
    });

    it("concurrent read-modify-write transactions lose no update", async () => {
      await add(s.a, "n", 0);
      const { loginFailures: f } = s.a.t;
      const bump = (st: Store) =>
        st.tx(async (t) => {
          // Take the row's lock before reading it (PostgreSQL at READ COMMITTED); SQLite runs one at a time anyway.
          await t.db
            .update(f)
            .set({ n: sql`${f.n}` })
            .where(eq(f.key, "n"));
          const n = (await countOf(t, "n"))!;
          await t.db
            .update(f)
            .set({ n: n + 1 })
            .where(eq(f.key, "n"));
        });
      await Promise.all([bump(s.a), bump(s.b), bump(s.a), bump(s.b), bump(s.a)]);
      expect(await countOf(s.b, "n")).toBe(5);
    });

    it("the clock inside a transaction is the store's clock", async () => {
      const before = Date.now() - 5_000;
      const at = await s.a.tx((t) => t.clock());
      expect(at).toBeGreaterThan(before);
      expect(at).toBeLessThan(Date.now() + 5_000);
    });
  });
}
