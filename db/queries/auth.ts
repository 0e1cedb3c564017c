import { and, asc, count, desc, eq, gt, inArray, isNull, lt, lte, min, or, sql, sum } from "drizzle-orm";
import type { Db } from "../client";
import { apiTokens, authLinks, authSessions, loginFailures, users } from "../schema";

export type UserRow = typeof users.$inferSelect;
export type TokenRow = typeof apiTokens.$inferSelect;
export type LinkRow = typeof authLinks.$inferSelect;

/** How many accounts exist (disabled ones included). */
export function countUsers(db: Db): number {
  return db.select({ n: count() }).from(users).get()?.n ?? 0;
}

/** How many enabled admins exist. */
export function countActiveAdmins(db: Db): number {
  return (
    db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, "admin"), eq(users.disabled, false)))
      .get()?.n ?? 0
  );
}

export function userByName(db: Db, username: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.username, username)).get();
}

export function userById(db: Db, id: number): UserRow | undefined {
  return db.select().from(users).where(eq(users.id, id)).get();
}

/** Every account, oldest first, without password hashes. */
export function listUsers(db: Db) {
  return db
    .select({
      id: users.id,
      username: users.username,
      role: users.role,
      disabled: users.disabled,
      createdAt: users.createdAt,
      lastLoginAt: users.lastLoginAt,
      pending: isNull(users.passwordHash),
    })
    .from(users)
    .orderBy(asc(users.id))
    .limit(500)
    .all();
}

/** Create an account; returns its id. */
export function insertUser(
  db: Db,
  row: { username: string; role: string; passwordHash: string | null },
  now: number,
): number {
  return db
    .insert(users)
    .values({ ...row, createdAt: now })
    .returning({ id: users.id })
    .get().id;
}

export function updateUser(
  db: Db,
  id: number,
  patch: Partial<Pick<UserRow, "role" | "passwordHash" | "disabled" | "lastLoginAt">>,
): void {
  db.update(users).set(patch).where(eq(users.id, id)).run();
}

export function insertSession(db: Db, row: typeof authSessions.$inferInsert): void {
  db.insert(authSessions).values(row).run();
}

/** The live session with this id (hash) and its enabled user, or undefined. */
export function sessionUser(db: Db, id: string, now: number) {
  return db
    .select({ userId: users.id, username: users.username, role: users.role, expiresAt: authSessions.expiresAt })
    .from(authSessions)
    .innerJoin(users, eq(users.id, authSessions.userId))
    .where(and(eq(authSessions.id, id), gt(authSessions.expiresAt, now), eq(users.disabled, false)))
    .get();
}

export function deleteSession(db: Db, id: string): void {
  db.delete(authSessions).where(eq(authSessions.id, id)).run();
}

export function deleteUserSessions(db: Db, userId: number): void {
  db.delete(authSessions).where(eq(authSessions.userId, userId)).run();
}

/** Drop expired sessions and links (housekeeping); sign-in failures are dropped by deleteLoginFailuresBefore. */
export function deleteExpiredAuth(db: Db, now: number): void {
  db.delete(authSessions).where(lt(authSessions.expiresAt, now)).run();
  db.delete(authLinks)
    .where(lt(authLinks.expiresAt, now - 86_400_000))
    .run();
}

export function insertToken(db: Db, row: Omit<typeof apiTokens.$inferInsert, "id">): number {
  return db.insert(apiTokens).values(row).returning({ id: apiTokens.id }).get().id;
}

export function tokenByDigest(db: Db, digest: string): TokenRow | undefined {
  return db.select().from(apiTokens).where(eq(apiTokens.digest, digest)).get();
}

/** Tokens, newest first, without digests. */
export function listTokens(db: Db) {
  return db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      scope: apiTokens.scope,
      hint: apiTokens.hint,
      createdBy: apiTokens.createdBy,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      revokedAt: apiTokens.revokedAt,
    })
    .from(apiTokens)
    .orderBy(desc(apiTokens.id))
    .limit(500)
    .all();
}

/** Digests (hex) of unrevoked tokens with one of these scopes. */
export function activeTokenDigests(db: Db, scopes: string[]): string[] {
  return db
    .select({ digest: apiTokens.digest })
    .from(apiTokens)
    .where(and(isNull(apiTokens.revokedAt), inArray(apiTokens.scope, scopes)))
    .all()
    .map((r) => r.digest);
}

/** Revoke a token; false when it does not exist or was already revoked. */
export function revokeToken(db: Db, id: number, now: number): boolean {
  return (
    db
      .update(apiTokens)
      .set({ revokedAt: now })
      .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
      .run().changes === 1
  );
}

/** Note a token's use at most once a minute (cheap on the ingest path). */
export function touchToken(db: Db, digest: string, now: number): void {
  db.update(apiTokens)
    .set({ lastUsedAt: now })
    .where(and(eq(apiTokens.digest, digest), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, now - 60_000))))
    .run();
}

export function insertLink(db: Db, row: typeof authLinks.$inferInsert): void {
  db.insert(authLinks).values(row).run();
}

/** An unused, unexpired link. */
export function liveLink(db: Db, digest: string, now: number): LinkRow | undefined {
  return db
    .select()
    .from(authLinks)
    .where(and(eq(authLinks.digest, digest), isNull(authLinks.usedAt), gt(authLinks.expiresAt, now)))
    .get();
}

/** Mark a link used; false when another request used it first. */
export function useLink(db: Db, digest: string, now: number): boolean {
  return (
    db
      .update(authLinks)
      .set({ usedAt: now })
      .where(and(eq(authLinks.digest, digest), isNull(authLinks.usedAt)))
      .run().changes === 1
  );
}

/** Failed sign-ins under `key` after `since` (Unix ms): how many, and the time of the oldest (null when none). */
export function loginFailuresSince(db: Db, key: string, since: number): { count: number; oldest: number | null } {
  const r = db
    .select({ count: sum(loginFailures.n).mapWith(Number), oldest: min(loginFailures.at) })
    .from(loginFailures)
    .where(and(eq(loginFailures.key, key), gt(loginFailures.at, since)))
    .get();
  return { count: r?.count ?? 0, oldest: r?.oldest ?? null };
}

/**
 * Count one failed sign-in at `now` under each key (failures in the same ms add up) and drop the key's failures at
 * or before `dropBefore` (Unix ms), in one transaction.
 */
export function insertLoginFailures(db: Db, keys: readonly string[], now: number, dropBefore: number): void {
  db.transaction((tx) => {
    for (const key of keys) {
      tx.delete(loginFailures)
        .where(and(eq(loginFailures.key, key), lte(loginFailures.at, dropBefore)))
        .run();
      tx.insert(loginFailures)
        .values({ key, at: now, n: 1 })
        .onConflictDoUpdate({ target: [loginFailures.key, loginFailures.at], set: { n: sql`${loginFailures.n} + 1` } })
        .run();
    }
  });
}

/** Forget every failure under `key` (a successful sign-in clears its account's count). */
export function clearLoginFailures(db: Db, key: string): void {
  db.delete(loginFailures).where(eq(loginFailures.key, key)).run();
}

/** Drop every failure at or before `before` (Unix ms). Returns rows gone. */
export function deleteLoginFailuresBefore(db: Db, before: number): number {
  return db.delete(loginFailures).where(lte(loginFailures.at, before)).run().changes;
}
