import { type Db, isBusy } from "../../db/client";
import { activeTokenDigests, insertToken, tokenByDigest, touchToken } from "../../db/queries/auth";
import { isScope, scopeRole, type Actor, type TokenScope } from "./roles";
import { digestHex, newSecret } from "./secrets";

/** Create a token; the value is returned once and only its digest is stored. */
export function createToken(
  db: Db,
  input: { name: string; scope: TokenScope; createdBy: string },
  now: number,
): { id: number; token: string } {
  const token = newSecret(`sy_${input.scope}`);
  return { id: storeToken(db, input, token, now), token };
}

/** Store a token with a given value (env bootstrap); returns its id. */
export function storeToken(
  db: Db,
  input: { name: string; scope: TokenScope; createdBy: string },
  token: string,
  now: number,
): number {
  return insertToken(db, { ...input, digest: digestHex(token), hint: `…${token.slice(-4)}`, createdAt: now });
}

/** The bearer value of an Authorization header, or null. */
export function bearerValue(header: string | null): string | null {
  const m = /^Bearer\s+(\S{1,512})\s*$/i.exec(header ?? "");
  return m ? m[1]! : null;
}

/** The actor an API token acts as (read → viewer, operate → operator, admin → admin); null for ingest-only, revoked or unknown. */
export function tokenActor(db: Db, token: string, now: number): Actor | null {
  const row = tokenByDigest(db, digestHex(token));
  if (!row || row.revokedAt !== null || !isScope(row.scope)) return null;
  const role = scopeRole(row.scope);
  if (!role) return null;
  noteUse(db, row.digest, now);
  return { kind: "token", id: row.id, name: row.name, role };
}

/** Digests (raw bytes) of every unrevoked token allowed to ingest, plus the configured one unless it was revoked. */
export function ingestTokenDigests(db: Db, configured: string | undefined): Buffer[] {
  const hex = new Set(activeTokenDigests(db, ["ingest", "admin"]));
  if (configured) {
    const d = digestHex(configured);
    if (tokenByDigest(db, d)?.revokedAt == null) hex.add(d);
  }
  return [...hex].map((h) => Buffer.from(h, "hex"));
}

/** Record last use; a busy database skips it (the next use records it). */
export function noteUse(db: Db, digest: string, now: number): void {
  try {
    touchToken(db, digest, now);
  } catch (err) {
    if (!isBusy(err)) throw err;
  }
}

/**
 * Make the configured tokens real rows: SWITCHYARD_INGEST_TOKEN as an ingest token, and on a database without users
 * or tokens SWITCHYARD_BOOTSTRAP_API_TOKEN as an admin token. Already stored (or revoked) values are left alone.
 */
export function ensureConfiguredTokens(
  db: Db,
  cfg: { ingest?: string; bootstrap?: string },
  emptyBefore: boolean,
  now: number,
): void {
  if (cfg.ingest && !tokenByDigest(db, digestHex(cfg.ingest)))
    storeToken(db, { name: "SWITCHYARD_INGEST_TOKEN", scope: "ingest", createdBy: "environment" }, cfg.ingest, now);
  if (cfg.bootstrap && emptyBefore && !tokenByDigest(db, digestHex(cfg.bootstrap))) {
    storeToken(
      db,
      { name: "SWITCHYARD_BOOTSTRAP_API_TOKEN", scope: "admin", createdBy: "environment" },
      cfg.bootstrap,
      now,
    );
  }
}
