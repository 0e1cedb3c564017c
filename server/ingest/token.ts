import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { activeTokenDigests, insertToken, insertTokenIfAbsent, settingValue } from "../../db/store/accounts";
import type { Store } from "../../db/store/store";
import { tokenRow } from "../auth/tokens";

// The hash of the ingest token generated before tokens had their own table; adopted as a token row.
const LEGACY_KEY = "ingest_token_sha256";

const sha256 = (s: string) => createHash("sha256").update(s).digest();

/**
 * Make sure some token can ingest. With none configured and none stored, generate an ingest token, keep its hash
 * in the token table, and return it so the caller can print it once; otherwise return null.
 */
export async function ensureIngestToken(s: Store, configured: string | undefined, now: number): Promise<string | null> {
  const legacy = await settingValue(s, LEGACY_KEY);
  if (legacy) {
    await insertTokenIfAbsent(s, {
      name: "generated ingest token",
      scope: "ingest",
      digest: legacy,
      hint: "…",
      createdBy: "first start",
      createdAt: now,
    });
  }
  if (configured || (await activeTokenDigests(s, ["ingest"])).length > 0 || legacy) return null;
  const token = `sy_ingest_${randomBytes(24).toString("base64url")}`;
  await insertToken(
    s,
    tokenRow({ name: "generated ingest token", scope: "ingest", createdBy: "first start" }, token, now),
  );
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
