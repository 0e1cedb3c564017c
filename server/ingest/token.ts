import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Db } from "../../db/client";
import { activeTokenDigests, tokenByDigest } from "../../db/queries/auth";
import { getSetting } from "../../db/queries/settings";
import { storeToken } from "../auth/tokens";

// The hash of the ingest token generated before tokens had their own table; adopted as a token row.
const LEGACY_KEY = "ingest_token_sha256";

const sha256 = (s: string) => createHash("sha256").update(s).digest();

/**
 * Make sure some token can ingest. With none configured and none stored, generate an ingest token, keep its hash
 * in the token table, and return it so the caller can print it once; otherwise return null.
 */
export function ensureIngestToken(db: Db, configured: string | undefined, now: number): string | null {
  const legacy = getSetting(db, LEGACY_KEY);
  if (legacy && !tokenByDigest(db, legacy)) {
    db.$client
      .prepare(
        "INSERT OR IGNORE INTO api_tokens (name, scope, digest, hint, created_by, created_at) VALUES (?, 'ingest', ?, '…', 'first start', ?)",
      )
      .run("generated ingest token", legacy, now);
  }
  if (configured || activeTokenDigests(db, ["ingest"]).length > 0 || legacy) return null;
  const token = `sy_ingest_${randomBytes(24).toString("base64url")}`;
  storeToken(db, { name: "generated ingest token", scope: "ingest", createdBy: "first start" }, token, now);
  return token;
}

/** The hex digest of the accepted token an Authorization header carries, or null (constant-time compare). */
export function matchedBearer(header: string | null, digests: Buffer[]): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!m) return null;
  const given = sha256(m[1]!);
  let ok = false;
  for (const d of digests) if (d.length === given.length && timingSafeEqual(d, given)) ok = true;
  return ok ? given.toString("hex") : null;
}

/** True when an Authorization header carries one of the accepted tokens. */
export function bearerMatches(header: string | null, digests: Buffer[]): boolean {
  return matchedBearer(header, digests) !== null;
}
