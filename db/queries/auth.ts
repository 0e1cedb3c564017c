import { and, asc, count, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Db } from "../client";
import { apiTokens, authLinks, authSessions, users } from "../schema";

// Accounts administration, token creation and listing, one-time links: synchronous, SQLite only, until their callers
// (account transactions, the ingest token path) move onto the engine-neutral store. Sign-in, sessions, token checks
// and sign-in failures are db/store/auth.ts's.

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

export function deleteUserSessions(db: Db, userId: number): void {
  db.delete(authSessions).where(eq(authSessions.userId, userId)).run();
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
