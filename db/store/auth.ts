import { and, eq, gt, inArray, isNull, lt, lte, min, or, sql, sum } from "drizzle-orm";
import type { Store } from "./store";

// Sign-in, sessions, API-token checks and sign-in failures on either engine (server/auth). Times in Unix ms.

export type UserRow = Store["t"]["users"]["$inferSelect"];
export type TokenRow = Store["t"]["apiTokens"]["$inferSelect"];
export type SessionInsert = Store["t"]["authSessions"]["$inferInsert"];

export async function userByName(s: Store, username: string): Promise<UserRow | undefined> {
  const { users } = s.t;
  return (await s.db.select().from(users).where(eq(users.username, username)).limit(1))[0];
}

export async function userById(s: Store, id: number): Promise<UserRow | undefined> {
  const { users } = s.t;
  return (await s.db.select().from(users).where(eq(users.id, id)).limit(1))[0];
}

export async function updateUser(
  s: Store,
  id: number,
  patch: Partial<Pick<UserRow, "role" | "passwordHash" | "disabled" | "lastLoginAt">>,
): Promise<void> {
  return s.tx(async (t) => {
    const { users } = t.t;
    await t.db.update(users).set(patch).where(eq(users.id, id));
  });
}

export async function insertSession(s: Store, row: SessionInsert): Promise<void> {
  return s.tx(async (t) => {
    await t.db.insert(t.t.authSessions).values(row);
  });
}

/** The live session with this id (hash) and its enabled user, or undefined. */
export async function sessionUser(s: Store, id: string, now: number) {
  const { authSessions, users } = s.t;
  const rows = await s.db
    .select({ userId: users.id, username: users.username, role: users.role, expiresAt: authSessions.expiresAt })
    .from(authSessions)
    .innerJoin(users, eq(users.id, authSessions.userId))
    .where(and(eq(authSessions.id, id), gt(authSessions.expiresAt, now), eq(users.disabled, false)))
    .limit(1);
  return rows[0];
}

export async function deleteSession(s: Store, id: string): Promise<void> {
  return s.tx(async (t) => {
    const { authSessions } = t.t;
    await t.db.delete(authSessions).where(eq(authSessions.id, id));
  });
}

/**
 * Drop expired sessions, links and known devices (housekeeping); sign-in failures are dropped by
 * deleteLoginFailuresBefore.
 */
export async function deleteExpiredAuth(s: Store, now: number): Promise<void> {
  return s.tx(async (t) => {
    const { authSessions, authLinks, knownDevices } = t.t;
    await t.db.delete(authSessions).where(lt(authSessions.expiresAt, now));
    await t.db.delete(authLinks).where(lt(authLinks.expiresAt, now - 86_400_000));
    await t.db.delete(knownDevices).where(lt(knownDevices.expiresAt, now));
  });
}

export async function tokenByDigest(s: Store, digest: string): Promise<TokenRow | undefined> {
  const { apiTokens } = s.t;
  return (await s.db.select().from(apiTokens).where(eq(apiTokens.digest, digest)).limit(1))[0];
}

/**
 * Note a token's use at most once a minute (cheap on the ingest path). A bare write, not a transaction: on the ingest
 * path a busy database skips it (server/auth/tokens.ts) rather than waiting for the lock.
 */
export async function touchToken(s: Store, digest: string, now: number): Promise<void> {
  const { apiTokens } = s.t;
  await s.db
    .update(apiTokens)
    .set({ lastUsedAt: now })
    .where(and(eq(apiTokens.digest, digest), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, now - 60_000))));
}

/** Failed sign-ins under `key` after `since` (Unix ms): how many, and the time of the oldest (null when none). */
export async function loginFailuresSince(
  s: Store,
  key: string,
  since: number,
): Promise<{ count: number; oldest: number | null }> {
  const { loginFailures } = s.t;
  const rows = await s.db
    .select({ count: sum(loginFailures.n).mapWith(Number), oldest: min(loginFailures.at) })
    .from(loginFailures)
    .where(and(eq(loginFailures.key, key), gt(loginFailures.at, since)));
  const r = rows[0];
  return { count: r?.count ?? 0, oldest: r?.oldest ?? null };
}

/** A limit on the failures counted under one key in the window. */
export type KeyLimit = { key: string; limit: number };

/**
 * Count one sign-in attempt at `now` under every key of `counted`, only when each key of `limits` has fewer than its
 * limit counted after `since` (Unix ms); true when counted. The count and the decision are one INSERT … SELECT, in a
 * transaction that on PostgreSQL first takes a lock per key (at READ COMMITTED two statements could both see room
 * for one more; SQLite's write transactions already run one at a time). Also drops the keys' failures at or before
 * `since`. Attempts in the same ms add up.
 */
export async function reserveLoginAttempt(
  s: Store,
  counted: readonly string[],
  limits: readonly KeyLimit[],
  now: number,
  since: number,
): Promise<boolean> {
  const keys = [...new Set(counted)];
  if (keys.length === 0) return true;
  return s.tx(async (t) => {
    const f = t.t.loginFailures;
    if (t.engine === "pg")
      for (const key of [...new Set([...keys, ...limits.map((l) => l.key)])].sort())
        await t.db
          .select({ locked: sql`pg_advisory_xact_lock(hashtextextended(${`login:${key}`}, 0))` })
          .from(sql`(SELECT 1) AS one`);
    const source = sql.join(
      keys.map((key) => sql`SELECT CAST(${key} AS text) AS key`),
      sql` UNION ALL `,
    );
    const room = limits.map(
      ({ key, limit }) =>
        sql`(SELECT coalesce(sum(${f.n}), 0) FROM ${f} WHERE ${f.key} = ${key} AND ${f.at} > ${since}) < ${limit}`,
    );
    const rows = await t.db
      .insert(f)
      .select(
        sql`SELECT k.key, CAST(${now} AS bigint), 1 FROM (${source}) AS k WHERE ${room.length ? sql.join(room, sql` AND `) : sql`1 = 1`}`,
      )
      .onConflictDoUpdate({ target: [f.key, f.at], set: { n: sql`${f.n} + 1` } })
      .returning({ key: f.key });
    await t.db.delete(f).where(and(inArray(f.key, keys), lte(f.at, since)));
    return rows.length > 0;
  });
}

/** Take back one attempt counted at `at` under each key (a sign-in that succeeded). */
export async function releaseLoginAttempt(s: Store, keys: readonly string[], at: number): Promise<void> {
  const distinct = [...new Set(keys)];
  if (distinct.length === 0) return;
  return s.tx(async (t) => {
    const f = t.t.loginFailures;
    const mine = and(inArray(f.key, distinct), eq(f.at, at));
    await t.db
      .update(f)
      .set({ n: sql`${f.n} - 1` })
      .where(mine);
    await t.db.delete(f).where(and(mine, lte(f.n, 0)));
  });
}

/** Forget every failure under `key` (a successful sign-in clears its account's count). */
export async function clearLoginFailures(s: Store, key: string): Promise<void> {
  return s.tx(async (t) => {
    const { loginFailures } = t.t;
    await t.db.delete(loginFailures).where(eq(loginFailures.key, key));
  });
}

/** Drop every failure at or before `before` (Unix ms). Returns rows gone. */
export async function deleteLoginFailuresBefore(s: Store, before: number): Promise<number> {
  return s.tx(async (t) => {
    const { loginFailures } = t.t;
    const rows = await t.db
      .delete(loginFailures)
      .where(lte(loginFailures.at, before))
      .returning({ key: loginFailures.key });
    return rows.length;
  });
}
