import { and, eq } from "drizzle-orm";
import type { LeaseRow } from "../rows/leases";
import type { Store } from "./store";

// Lease rows on either engine (the leader's I/O, server/jobs/leader.ts). Times are the store's clock (Store.clock).
// Bare writes, not store.tx: on SQLite a busy file fails the look at once and the leader asks again at its next tick,
// where a transaction would wait up to 10 s for the lock, past the leader's renew period (4 s).

/** The lease called `name`, or null when no process has taken it yet (or the last holder released it). */
export async function readLease(s: Store, name: string): Promise<LeaseRow | null> {
  const { leases } = s.t;
  const rows = await s.db
    .select({ holder: leases.holder, since: leases.since, expiresAt: leases.expiresAt })
    .from(leases)
    .where(eq(leases.name, name))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Write `next` only if the row is still `expected` (null: still absent) — a compare-and-set, so of two processes that
 * read the same row and both try, exactly one wins. True when this write won.
 */
export async function replaceLease(
  s: Store,
  name: string,
  expected: LeaseRow | null,
  next: LeaseRow,
): Promise<boolean> {
  const { leases } = s.t;
  if (expected === null) {
    const rows = await s.db
      .insert(leases)
      .values({ name, ...next })
      .onConflictDoNothing()
      .returning({ name: leases.name });
    return rows.length === 1;
  }
  const rows = await s.db
    .update(leases)
    .set(next)
    .where(
      and(
        eq(leases.name, name),
        eq(leases.holder, expected.holder),
        eq(leases.since, expected.since),
        eq(leases.expiresAt, expected.expiresAt),
      ),
    )
    .returning({ name: leases.name });
  return rows.length === 1;
}

/** Give the lease up (a clean shutdown), so another process need not wait for it to expire; false if not held. */
export async function releaseLease(s: Store, name: string, holder: string): Promise<boolean> {
  const { leases } = s.t;
  const rows = await s.db
    .delete(leases)
    .where(and(eq(leases.name, name), eq(leases.holder, holder)))
    .returning({ name: leases.name });
  return rows.length === 1;
}
