import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../../db/client";
import { getSetting, putSettingIfAbsent } from "../../db/queries/settings";

const KEY = "ingest_token_sha256";

const sha256 = (s: string) => createHash("sha256").update(s).digest();

/**
 * Make sure an ingest token exists. With none configured and none stored, generate one, keep its
 * hash, and return it so the caller can print it once; otherwise return null.
 */
export function ensureIngestToken(db: Db, configured: string | undefined, now: number): string | null {
  if (configured || getSetting(db, KEY)) return null;
  const token = `sy_ingest_${randomBytes(24).toString("base64url")}`;
  return putSettingIfAbsent(db, KEY, sha256(token).toString("hex"), now) ? token : null;
}

/** The SHA-256 digests of every token /api/ingest accepts. */
export function acceptedTokenDigests(db: Db, configured: string | undefined): Buffer[] {
  const out: Buffer[] = [];
  if (configured) out.push(sha256(configured));
  const stored = getSetting(db, KEY);
  if (stored) out.push(Buffer.from(stored, "hex"));
  return out;
}

/** True when an Authorization header carries one of the accepted tokens (constant-time compare). */
export function bearerMatches(header: string | null, digests: Buffer[]): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!m) return false;
  const given = sha256(m[1]!);
  let ok = false;
  for (const d of digests) if (d.length === given.length && timingSafeEqual(d, given)) ok = true;
  return ok;
}
