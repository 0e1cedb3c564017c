import {
  deleteKnownDevices,
  insertKnownDevice,
  knownDeviceUser,
  touchKnownDevice,
  trimKnownDevices,
} from "../../db/store/known-devices";
import type { Store } from "../../db/store/store";
import { DEVICE_COOKIE } from "./constants";
import { digestHex, newSecret } from "./secrets";

// Known devices: a browser that signed in with an account's password gets a long-lived cookie with a random value
// (only its digest is stored, with the user id), and may still sign in to that account while it is locked for others.

export { DEVICE_COOKIE };

/** How long a known device stays known after its last sign-in. */
export const DEVICE_DAYS = 180;
const DEVICE_MS = DEVICE_DAYS * 86_400_000;

/** The most known devices a user keeps; signing in from one more forgets the least recently used. */
export const MAX_DEVICES = 20;

const plausible = (value: string | null | undefined): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= 200;

/** The digest of the browser's known-device cookie when it is a live device of `username`'s account, else null. */
export async function knownDevice(
  s: Store,
  value: string | null | undefined,
  username: string,
  now: number,
): Promise<string | null> {
  if (!plausible(value)) return null;
  const digest = digestHex(value);
  return (await knownDeviceUser(s, digest, username, now)) === undefined ? null : digest;
}

/**
 * After a sign-in with the password: keep the browser's cookie when it is already one of the user's live devices
 * (its time starts again), else make a new device. Returns the cookie value to set.
 */
export async function rememberDevice(
  s: Store,
  userId: number,
  value: string | null | undefined,
  now: number,
): Promise<{ value: string; expiresAt: number }> {
  const expiresAt = now + DEVICE_MS;
  if (plausible(value) && (await touchKnownDevice(s, digestHex(value), userId, now, expiresAt)))
    return { value, expiresAt };
  const fresh = newSecret("syd");
  await s.tx(async (t) => {
    await insertKnownDevice(t, { id: digestHex(fresh), userId, createdAt: now, lastUsedAt: now, expiresAt });
    await trimKnownDevices(t, userId, MAX_DEVICES);
  });
  return { value: fresh, expiresAt };
}

/** Forget every device of a user: their password changed or their account was disabled. */
export function forgetDevices(s: Store, userId: number): Promise<void> {
  return deleteKnownDevices(s, userId);
}

/**
 * Set-Cookie for a known device: httpOnly, SameSite=Lax, Secure behind https, sent only to the sign-in route (the one
 * place that reads it), for DEVICE_DAYS.
 */
export function deviceCookie(value: string, expiresAt: number, secure: boolean): string {
  const parts = [
    `${DEVICE_COOKIE}=${value}`,
    "Path=/api/auth/login",
    "HttpOnly",
    "SameSite=Lax",
    `Expires=${new Date(expiresAt).toUTCString()}`,
  ];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}
