import { timingSafeEqual } from "node:crypto";
import { isBusy } from "../../db/sqlite/client";
import { insertToken, insertTokenIfAbsent } from "../../db/store/accounts";
import * as store from "../../db/store/auth";
import type { Store } from "../../db/store/store";
import { isScope, scopeRole, type Actor, type TokenScope } from "./roles";
import { digestHex, newSecret } from "./secrets";

// API tokens on the store, either engine: creating them, checking one as an actor or for ingest, and the configured
// ones made rows at start.

/** Create a token; the value is returned once and only its digest is stored. */
export async function createToken(
  s: Store,
  input: { name: string; scope: TokenScope; createdBy: string },
  now: number,
): Promise<{ id: number; token: string }> {
  const token = newSecret(`sy_${input.scope}`);
  return { id: await insertToken(s, tokenRow(input, token, now)), token };
}

/** The row of a token with this value: only its digest and last four characters are kept. */
export function tokenRow(input: { name: string; scope: TokenScope; createdBy: string }, token: string, now: number) {
  return { ...input, digest: digestHex(token), hint: `…${token.slice(-4)}`, createdAt: now };
}

/** The bearer value of an Authorization header, or null. */
export function bearerValue(header: string | null): string | null {
  const m = /^Bearer\s+(\S{1,512})\s*$/i.exec(header ?? "");
  return m ? m[1]! : null;
}

/** The actor an API token acts as (read → viewer, operate → operator, admin → admin); null for ingest-only, revoked or unknown. */
export async function tokenActor(s: Store, token: string, now: number): Promise<Actor | null> {
  const row = await store.tokenByDigest(s, digestHex(token));
  if (!row || row.revokedAt !== null || !isScope(row.scope)) return null;
  const role = scopeRole(row.scope);
  if (!role) return null;
  await noteUse(s, row.digest, now);
  return { kind: "token", id: row.id, name: row.name, role };
}

/**
 * The hex digest of the token an Authorization header carries ("Bearer <token>") when that token may ingest right
 * now, else null: an unrevoked ingest or admin token, or the configured one unless its row was revoked. Read from the
 * store on every call (one indexed lookup by digest), so a revoked token stops at once.
 */
export async function ingestTokenMatch(
  s: Store,
  header: string | null,
  configured: string | undefined,
): Promise<string | null> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!m) return null;
  const given = digestHex(m[1]!);
  const row = await store.tokenByDigest(s, given);
  if (row && row.revokedAt !== null) return null;
  if (row && (row.scope === "ingest" || row.scope === "admin")) return given;
  return configured && sameDigest(digestHex(configured), given) ? given : null;
}

const sameDigest = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));

/** Record last use; a busy database skips it (the next use records it). */
export async function noteUse(s: Store, digest: string, now: number): Promise<void> {
  try {
    await store.touchToken(s, digest, now);
  } catch (err) {
    if (!isBusy(err)) throw err;
  }
}

/**
 * Make the configured tokens real rows: SWITCHYARD_INGEST_TOKEN as an ingest token, and on a database without users
 * or tokens SWITCHYARD_BOOTSTRAP_API_TOKEN as an admin token. Already stored (or revoked) values are left alone, also
 * when another process stores them at the same time.
 */
export async function ensureConfiguredTokens(
  s: Store,
  cfg: { ingest?: string; bootstrap?: string },
  emptyBefore: boolean,
  now: number,
): Promise<void> {
  if (cfg.ingest)
    await insertTokenIfAbsent(
      s,
      tokenRow({ name: "SWITCHYARD_INGEST_TOKEN", scope: "ingest", createdBy: "environment" }, cfg.ingest, now),
    );
  if (cfg.bootstrap && emptyBefore)
    await insertTokenIfAbsent(
      s,
      tokenRow(
        { name: "SWITCHYARD_BOOTSTRAP_API_TOKEN", scope: "admin", createdBy: "environment" },
        cfg.bootstrap,
        now,
      ),
    );
}
