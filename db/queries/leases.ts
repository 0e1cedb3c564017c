import { and, eq } from "drizzle-orm";
import type { Db } from "../client";
import type { LeaseRow } from "../rows/leases";
import { leases } from "../schema";

/** The lease called `name`, or null when no process has taken it yet (or the last holder released it). */
export function readLease(db: Db, name: string): LeaseRow | null {
  return (
    db
      .select({ holder: leases.holder, since: leases.since, expiresAt: leases.expiresAt })
      .from(leases)
      .where(eq(leases.name, name))
      .get() ?? null
  );
}

/**
 * Write `next` only if the row is still `expected` (null: still absent) — a compare-and-set, so of two processes that
 * read the same row and both try, exactly one wins. True when this write won.
 */
export function replaceLease(db: Db, name: string, expected: LeaseRow | null, next: LeaseRow): boolean {
  if (expected === null)
    return (
      db
        .insert(leases)
        .values({ name, ...next })
        .onConflictDoNothing()
        .run().changes === 1
    );
  return (
    db
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
      .run().changes === 1
  );
}

/** Give the lease up (a clean shutdown), so another process need not wait for it to expire; false if not held. */
export function releaseLease(db: Db, name: string, holder: string): boolean {
  return (
    db
      .delete(leases)
      .where(and(eq(leases.name, name), eq(leases.holder, holder)))
      .run().changes === 1
  );
}
