import { deleteSession, insertSession, sessionUser } from "../../db/store/auth";
import type { Store } from "../../db/store/store";
import { isRole, type Actor } from "./roles";
import { SESSION_COOKIE } from "./constants";
import { digestHex, newSecret } from "./secrets";

export { SESSION_COOKIE };

/** Start a session for a user; returns the cookie value (only its digest is stored). */
export async function startSession(
  s: Store,
  userId: number,
  now: number,
  ttlMs: number,
): Promise<{ value: string; expiresAt: number }> {
  const value = newSecret("sys");
  const expiresAt = now + ttlMs;
  await insertSession(s, { id: digestHex(value), userId, createdAt: now, expiresAt });
  return { value, expiresAt };
}

/** The signed-in user behind a session cookie value, or null when missing, expired or disabled. */
export async function sessionActor(s: Store, value: string | null | undefined, now: number): Promise<Actor | null> {
  if (!value || value.length > 200) return null;
  const row = await sessionUser(s, digestHex(value), now);
  if (!row || !isRole(row.role)) return null;
  return { kind: "user", id: row.userId, name: row.username, role: row.role };
}

export async function endSession(s: Store, value: string | null | undefined): Promise<void> {
  if (value && value.length <= 200) await deleteSession(s, digestHex(value));
}

/** Set-Cookie for a session: httpOnly, SameSite=Lax, Secure behind https. */
export function sessionCookie(value: string, expiresAt: number, secure: boolean): string {
  const parts = [
    `${SESSION_COOKIE}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Expires=${new Date(expiresAt).toUTCString()}`,
  ];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

export function clearedSessionCookie(secure: boolean): string {
  return [`${SESSION_COOKIE}=`, "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0", ...(secure ? ["Secure"] : [])].join(
    "; ",
  );
}

/** A cookie's value from a Cookie header. */
export function readCookie(header: string | null, name: string): string | null {
  for (const part of (header ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return null;
}
