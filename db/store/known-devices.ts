import { and, desc, eq, gt, notInArray } from "drizzle-orm";
import type { Store } from "./store";

// Known devices on either engine (server/auth/devices.ts): browsers that signed in with a user's password, by the
// SHA-256 (hex) of their cookie's value. Times in Unix ms.

export type KnownDeviceInsert = Store["t"]["knownDevices"]["$inferInsert"];

/** The user id of the live known device `id` when it belongs to the account `username`, else undefined. */
export async function knownDeviceUser(
  s: Store,
  id: string,
  username: string,
  now: number,
): Promise<number | undefined> {
  const { knownDevices, users } = s.t;
  const rows = await s.db
    .select({ userId: knownDevices.userId })
    .from(knownDevices)
    .innerJoin(users, eq(users.id, knownDevices.userId))
    .where(and(eq(knownDevices.id, id), eq(users.username, username), gt(knownDevices.expiresAt, now)))
    .limit(1);
  return rows[0]?.userId;
}

/** Note a sign-in from the live known device `id` of `userId` (moves its expiry); false when it is not one. */
export async function touchKnownDevice(
  s: Store,
  id: string,
  userId: number,
  now: number,
  expiresAt: number,
): Promise<boolean> {
  return s.tx(async (t) => {
    const { knownDevices } = t.t;
    const rows = await t.db
      .update(knownDevices)
      .set({ lastUsedAt: now, expiresAt })
      .where(and(eq(knownDevices.id, id), eq(knownDevices.userId, userId), gt(knownDevices.expiresAt, now)))
      .returning({ id: knownDevices.id });
    return rows.length === 1;
  });
}

export async function insertKnownDevice(s: Store, row: KnownDeviceInsert): Promise<void> {
  return s.tx(async (t) => {
    await t.db.insert(t.t.knownDevices).values(row);
  });
}

/** Keep a user's `keep` most recently used devices and drop the rest; returns how many were dropped. */
export async function trimKnownDevices(s: Store, userId: number, keep: number): Promise<number> {
  return s.tx(async (t) => {
    const { knownDevices } = t.t;
    const newest = t.db
      .select({ id: knownDevices.id })
      .from(knownDevices)
      .where(eq(knownDevices.userId, userId))
      .orderBy(desc(knownDevices.lastUsedAt), desc(knownDevices.createdAt), desc(knownDevices.id))
      .limit(keep);
    const rows = await t.db
      .delete(knownDevices)
      .where(and(eq(knownDevices.userId, userId), notInArray(knownDevices.id, newest)))
      .returning({ id: knownDevices.id });
    return rows.length;
  });
}

/** Forget every known device of a user (password changed, account disabled). */
export async function deleteKnownDevices(s: Store, userId: number): Promise<void> {
  return s.tx(async (t) => {
    const { knownDevices } = t.t;
    await t.db.delete(knownDevices).where(eq(knownDevices.userId, userId));
  });
}
