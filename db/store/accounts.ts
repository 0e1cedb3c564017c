import { and, asc, count, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Store } from "./store";

// Account administration, token creation and listing, and one-time links on either engine (server/auth). Sign-in,
// sessions, token checks and sign-in failures are in auth.ts. Times in Unix ms.

export type LinkRow = Store["t"]["authLinks"]["$inferSelect"];
export type TokenInsert = Omit<Store["t"]["apiTokens"]["$inferInsert"], "id">;

/** How many accounts exist (disabled ones included). */
export async function countUsers(s: Store): Promise<number> {
  return (await s.db.select({ n: count() }).from(s.t.users))[0]?.n ?? 0;
}

/** How many enabled admins exist. */
export async function countActiveAdmins(s: Store): Promise<number> {
  const { users } = s.t;
  const rows = await s.db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), eq(users.disabled, false)));
  return rows[0]?.n ?? 0;
}

/** Every account, oldest first (at most 500), without password hashes; pending: invited, no password set yet. */
export async function listUsers(s: Store) {
  const { users } = s.t;
  return s.db
    .select({
      id: users.id,
      username: users.username,
      role: users.role,
      disabled: users.disabled,
      createdAt: users.createdAt,
      lastLoginAt: users.lastLoginAt,
      // SQLite answers 0/1, PostgreSQL a boolean.
      pending: sql<boolean>`${users.passwordHash} IS NULL`.mapWith((v: unknown) => Boolean(v)),
    })
    .from(users)
    .orderBy(asc(users.id))
    .limit(500);
}

/**
 * Lock the admins' rows until the transaction ends (PostgreSQL: two processes demoting the last two admins at once
 * take turns; SQLite: its transactions already do). Changes nothing.
 */
export async function lockAdmins(s: Store): Promise<void> {
  const { users } = s.t;
  await s.db
    .update(users)
    .set({ role: sql`${users.role}` })
    .where(eq(users.role, "admin"));
}

/** Create an account; returns its id. A taken username throws the engine's unique-constraint error. */
export async function insertUser(
  s: Store,
  row: { username: string; role: string; passwordHash: string | null },
  now: number,
): Promise<number> {
  return s.tx(async (t) => {
    const { users } = t.t;
    const rows = await t.db
      .insert(users)
      .values({ ...row, createdAt: now })
      .returning({ id: users.id });
    return rows[0]!.id;
  });
}

/** Sign a user out everywhere. */
export async function deleteUserSessions(s: Store, userId: number): Promise<void> {
  return s.tx(async (t) => {
    const { authSessions } = t.t;
    await t.db.delete(authSessions).where(eq(authSessions.userId, userId));
  });
}

/** Store a token row; returns its id. */
export async function insertToken(s: Store, row: TokenInsert): Promise<number> {
  return s.tx(async (t) => {
    const { apiTokens } = t.t;
    return (await t.db.insert(apiTokens).values(row).returning({ id: apiTokens.id }))[0]!.id;
  });
}

/** Store a token row unless one with its digest exists (kept as it is, revoked or not); true when stored. */
export async function insertTokenIfAbsent(s: Store, row: TokenInsert): Promise<boolean> {
  return s.tx(async (t) => {
    const { apiTokens } = t.t;
    const rows = await t.db
      .insert(apiTokens)
      .values(row)
      .onConflictDoNothing({ target: apiTokens.digest })
      .returning({ id: apiTokens.id });
    return rows.length === 1;
  });
}

/** Tokens, newest first (at most 500), without digests. */
export async function listTokens(s: Store) {
  const { apiTokens } = s.t;
  return s.db
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
    .limit(500);
}

/** How many tokens exist (revoked ones included). */
export async function countTokens(s: Store): Promise<number> {
  return (await s.db.select({ n: count() }).from(s.t.apiTokens))[0]?.n ?? 0;
}

/** Digests (hex) of unrevoked tokens with one of these scopes. */
export async function activeTokenDigests(s: Store, scopes: string[]): Promise<string[]> {
  const { apiTokens } = s.t;
  const rows = await s.db
    .select({ digest: apiTokens.digest })
    .from(apiTokens)
    .where(and(isNull(apiTokens.revokedAt), inArray(apiTokens.scope, scopes)));
  return rows.map((r) => r.digest);
}

/** Revoke a token; false when it does not exist or was already revoked. */
export async function revokeToken(s: Store, id: number, now: number): Promise<boolean> {
  return s.tx(async (t) => {
    const { apiTokens } = t.t;
    const rows = await t.db
      .update(apiTokens)
      .set({ revokedAt: now })
      .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
      .returning({ id: apiTokens.id });
    return rows.length === 1;
  });
}

export async function insertLink(s: Store, row: Store["t"]["authLinks"]["$inferInsert"]): Promise<void> {
  return s.tx(async (t) => {
    await t.db.insert(t.t.authLinks).values(row);
  });
}

/** An unused, unexpired link. */
export async function liveLink(s: Store, digest: string, now: number): Promise<LinkRow | undefined> {
  const { authLinks } = s.t;
  const rows = await s.db
    .select()
    .from(authLinks)
    .where(and(eq(authLinks.digest, digest), isNull(authLinks.usedAt), gt(authLinks.expiresAt, now)))
    .limit(1);
  return rows[0];
}

/** Mark a link used; false when another request used it first. */
export async function useLink(s: Store, digest: string, now: number): Promise<boolean> {
  return s.tx(async (t) => {
    const { authLinks } = t.t;
    const rows = await t.db
      .update(authLinks)
      .set({ usedAt: now })
      .where(and(eq(authLinks.digest, digest), isNull(authLinks.usedAt)))
      .returning({ digest: authLinks.digest });
    return rows.length === 1;
  });
}

/** A settings value, or null when the key is not set. */
export async function settingValue(s: Store, key: string): Promise<string | null> {
  const { settings } = s.t;
  const rows = await s.db.select({ value: settings.value }).from(settings).where(eq(settings.key, key)).limit(1);
  return rows[0]?.value ?? null;
}
