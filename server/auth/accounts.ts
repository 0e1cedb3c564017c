import { z } from "zod";
import type { Db } from "../../db/client";
import {
  countActiveAdmins,
  countUsers,
  deleteUserSessions,
  insertLink,
  insertUser,
  liveLink,
  updateUser,
  useLink,
  userById,
  userByName,
} from "../../db/queries/auth";
import * as store from "../../db/store/auth";
import type { Store } from "../../db/store/store";
import { AppError } from "../errors";
import { ROLES, type Role } from "./roles";
import { digestHex, hashPassword, newSecret, verifyPassword } from "./secrets";

export const SETUP_LINK_MS = 60 * 60_000;
export const INVITE_LINK_MS = 7 * 24 * 60 * 60_000;

export const usernameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(2, "at least 2 characters")
  .max(64, "at most 64 characters")
  .regex(/^[a-z0-9][a-z0-9._@-]*$/, "letters, digits and . _ @ - only");
export const passwordSchema = z.string().min(12, "at least 12 characters").max(256, "at most 256 characters");
export const roleSchema = z.enum(ROLES);

/** On a database without users, a one-time link secret (valid 1 hour) to create the first admin; else null. */
export function createSetupLink(db: Db, now: number): string | null {
  if (countUsers(db) > 0) return null;
  const secret = newSecret("setup");
  insertLink(db, {
    digest: digestHex(secret),
    purpose: "setup",
    userId: null,
    createdAt: now,
    expiresAt: now + SETUP_LINK_MS,
  });
  return secret;
}

/** Invite a user with a role; returns the one-time link secret with which they set a password. */
export function inviteUser(
  db: Db,
  input: { username: string; role: Role },
  now: number,
): { id: number; secret: string } {
  if (userByName(db, input.username)) throw new AppError("CONFLICT", `user ${input.username} already exists`);
  const id = insertUser(db, { username: input.username, role: input.role, passwordHash: null }, now);
  const secret = newSecret("invite");
  insertLink(db, {
    digest: digestHex(secret),
    purpose: "invite",
    userId: id,
    createdAt: now,
    expiresAt: now + INVITE_LINK_MS,
  });
  return { id, secret };
}

/** What a live link is for (nothing is consumed). */
export function describeLink(
  db: Db,
  secret: string,
  now: number,
): { purpose: "setup" | "invite"; username: string | null } {
  const link = liveLink(db, digestHex(secret), now);
  if (!link || (link.purpose !== "setup" && link.purpose !== "invite"))
    throw new AppError("NOT_FOUND", "this link is invalid, expired or already used");
  if (link.purpose === "setup" && countUsers(db) > 0)
    throw new AppError("NOT_FOUND", "this link is invalid, expired or already used");
  return {
    purpose: link.purpose,
    username: link.userId === null ? null : (userById(db, link.userId)?.username ?? null),
  };
}

/**
 * Use a setup link (creates the first admin with username) or an invite link (sets the invited user's password).
 * A link works once; returns the user id to sign in.
 */
export async function redeemLink(
  db: Db,
  input: { secret: string; username?: string; password: string },
  now: number,
): Promise<number> {
  const { purpose } = describeLink(db, input.secret, now);
  const hash = await hashPassword(input.password);
  const digest = digestHex(input.secret);
  return db.transaction(() => {
    const link = liveLink(db, digest, now);
    if (!link || !useLink(db, digest, now))
      throw new AppError("NOT_FOUND", "this link is invalid, expired or already used");
    if (purpose === "setup") {
      if (countUsers(db) > 0) throw new AppError("NOT_FOUND", "this link is invalid, expired or already used");
      if (!input.username) throw new AppError("BAD_REQUEST", "username is required");
      return insertUser(db, { username: input.username, role: "admin", passwordHash: hash }, now);
    }
    const user = link.userId === null ? undefined : userById(db, link.userId);
    if (!user || user.disabled) throw new AppError("NOT_FOUND", "this link is invalid, expired or already used");
    updateUser(db, user.id, { passwordHash: hash });
    return user.id;
  });
}

/** The user id when username and password match an enabled account, else null (same cost either way). */
export async function checkPassword(s: Store, username: string, password: string): Promise<number | null> {
  const user = await store.userByName(s, username);
  const ok = await verifyPassword(password, user?.passwordHash ?? null);
  return ok && user && !user.disabled ? user.id : null;
}

/** Create or reset the demo admin with this run's password (npm start). */
export async function ensureDemoAdmin(db: Db, username: string, password: string, now: number): Promise<void> {
  const hash = await hashPassword(password);
  const user = userByName(db, username);
  if (!user) insertUser(db, { username, role: "admin", passwordHash: hash }, now);
  else updateUser(db, user.id, { passwordHash: hash, role: "admin", disabled: false });
}

/** Change a role or enable/disable an account; the last enabled admin cannot be demoted or disabled. */
export function changeUser(db: Db, id: number, patch: { role?: Role; disabled?: boolean }): void {
  db.transaction(() => {
    const user = userById(db, id);
    if (!user) throw new AppError("NOT_FOUND", `user ${id} does not exist`);
    const losesAdmin =
      user.role === "admin" && !user.disabled && ((patch.role && patch.role !== "admin") || patch.disabled === true);
    if (losesAdmin && countActiveAdmins(db) <= 1)
      throw new AppError("CONFLICT", "the last enabled admin cannot be demoted or disabled");
    updateUser(db, id, patch);
    if (patch.disabled) deleteUserSessions(db, id);
  });
}
