import { z } from "zod";
import {
  countActiveAdmins,
  countUsers,
  deleteUserSessions,
  insertLink,
  insertUser,
  liveLink,
  lockAdmins,
  useLink,
} from "../../db/store/accounts";
import { updateUser, userById, userByName } from "../../db/store/auth";
import { deleteKnownDevices } from "../../db/store/known-devices";
import type { Store } from "../../db/store/store";
import { AppError } from "../errors";
import { ROLES, type Role } from "./roles";
import { passwordProblem, usernameSchema } from "../../lib/password-rules";
import { digestHex, hashPassword, newSecret, verifyPassword } from "./secrets";

// Accounts on the store, either engine: the first admin's setup link, invitations, one-time links, roles and the
// demo admin. Writes that check and change together run in one store transaction.

export const SETUP_LINK_MS = 60 * 60_000;
export const INVITE_LINK_MS = 7 * 24 * 60 * 60_000;

export { usernameSchema };
export const roleSchema = z.enum(ROLES);

/** On a database without users, a one-time link secret (valid 1 hour) to create the first admin; else null. */
export async function createSetupLink(s: Store, now: number): Promise<string | null> {
  if ((await countUsers(s)) > 0) return null;
  const secret = newSecret("setup");
  await insertLink(s, {
    digest: digestHex(secret),
    purpose: "setup",
    userId: null,
    createdAt: now,
    expiresAt: now + SETUP_LINK_MS,
  });
  return secret;
}

const taken = (username: string) => new AppError("CONFLICT", `user ${username} already exists`);

/** True for a unique-constraint violation on either engine (SQLite's SQLITE_CONSTRAINT_UNIQUE, PostgreSQL's 23505). */
function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown; cause?: { code?: unknown } } | null)?.code;
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause?.code;
  return [code, cause].some((c) => c === "SQLITE_CONSTRAINT_UNIQUE" || c === "23505");
}

/** Invite a user with a role; returns the one-time link secret with which they set a password. */
export async function inviteUser(
  s: Store,
  input: { username: string; role: Role },
  now: number,
): Promise<{ id: number; secret: string }> {
  const secret = newSecret("invite");
  try {
    return await s.tx(async (t) => {
      if (await userByName(t, input.username)) throw taken(input.username);
      const id = await insertUser(t, { username: input.username, role: input.role, passwordHash: null }, now);
      await insertLink(t, {
        digest: digestHex(secret),
        purpose: "invite",
        userId: id,
        createdAt: now,
        expiresAt: now + INVITE_LINK_MS,
      });
      return { id, secret };
    });
  } catch (err) {
    // Another process invited the same name between the check and the insert.
    if (isUniqueViolation(err)) throw taken(input.username);
    throw err;
  }
}

const usedLink = () => new AppError("NOT_FOUND", "this link is invalid, expired or already used");

/** What a live link is for (nothing is consumed). */
export async function describeLink(
  s: Store,
  secret: string,
  now: number,
): Promise<{ purpose: "setup" | "invite"; username: string | null }> {
  const link = await liveLink(s, digestHex(secret), now);
  if (!link || (link.purpose !== "setup" && link.purpose !== "invite")) throw usedLink();
  if (link.purpose === "setup" && (await countUsers(s)) > 0) throw usedLink();
  return {
    purpose: link.purpose,
    username: link.userId === null ? null : ((await userById(s, link.userId))?.username ?? null),
  };
}

/**
 * Use a setup link (creates the first admin with username) or an invite link (sets the invited user's password).
 * A link works once; returns the user id to sign in. The password must pass the password rules with the account's
 * own name (an invite's stored one, whatever the form sent); nothing changes when it does not.
 */
export async function redeemLink(
  s: Store,
  input: { secret: string; username?: string; password: string },
  now: number,
): Promise<number> {
  const { purpose, username } = await describeLink(s, input.secret, now);
  const problem = await passwordProblem(input.password, [purpose === "setup" ? input.username : username]);
  if (problem) throw new AppError("BAD_REQUEST", `password: ${problem}`);
  const hash = await hashPassword(input.password);
  const digest = digestHex(input.secret);
  return s.tx(async (t) => {
    const link = await liveLink(t, digest, now);
    if (!link || !(await useLink(t, digest, now))) throw usedLink();
    if (purpose === "setup") {
      if ((await countUsers(t)) > 0) throw usedLink();
      if (!input.username) throw new AppError("BAD_REQUEST", "username is required");
      return insertUser(t, { username: input.username, role: "admin", passwordHash: hash }, now);
    }
    const user = link.userId === null ? undefined : await userById(t, link.userId);
    if (!user || user.disabled) throw usedLink();
    await updateUser(t, user.id, { passwordHash: hash });
    await deleteKnownDevices(t, user.id);
    return user.id;
  });
}

/** The user id when username and password match an enabled account, else null (same cost either way). */
export async function checkPassword(s: Store, username: string, password: string): Promise<number | null> {
  const user = await userByName(s, username);
  const ok = await verifyPassword(password, user?.passwordHash ?? null);
  return ok && user && !user.disabled ? user.id : null;
}

/** Create or reset the demo admin with this run's password (npm start); a reset forgets its known devices. */
export async function ensureDemoAdmin(s: Store, username: string, password: string, now: number): Promise<void> {
  const hash = await hashPassword(password);
  await s.tx(async (t) => {
    const user = await userByName(t, username);
    if (!user) await insertUser(t, { username, role: "admin", passwordHash: hash }, now);
    else {
      await updateUser(t, user.id, { passwordHash: hash, role: "admin", disabled: false });
      await deleteKnownDevices(t, user.id);
    }
  });
}

/**
 * Change a role or enable/disable an account; the last enabled admin cannot be demoted or disabled. Disabling signs
 * the user out everywhere and forgets their known devices.
 */
export async function changeUser(s: Store, id: number, patch: { role?: Role; disabled?: boolean }): Promise<void> {
  await s.tx(async (t) => {
    await lockAdmins(t);
    const user = await userById(t, id);
    if (!user) throw new AppError("NOT_FOUND", `user ${id} does not exist`);
    const losesAdmin =
      user.role === "admin" && !user.disabled && ((patch.role && patch.role !== "admin") || patch.disabled === true);
    if (losesAdmin && (await countActiveAdmins(t)) <= 1)
      throw new AppError("CONFLICT", "the last enabled admin cannot be demoted or disabled");
    await updateUser(t, id, patch);
    if (patch.disabled) {
      await deleteUserSessions(t, id);
      await deleteKnownDevices(t, id);
    }
  });
}
