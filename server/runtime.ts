import { sharedDb, type Db } from "../db/client";
import { LoginLimiter } from "./auth/rate-limit";
import { env } from "./env";
import { acceptedTokenDigests, recordTokenUse, setTokenUseListener } from "./ingest/token";

/** The server process's database connection (opened and migrated on first use). */
export function serverDb(): Db {
  return sharedDb(env().SWITCHYARD_DB);
}

/**
 * Digests of the tokens ingest accepts, read from the database on every call so a revoked token stops at once (one
 * indexed query); accepted tokens get their last-used time recorded.
 */
export function ingestDigests(): Buffer[] {
  const db = serverDb();
  setTokenUseListener(recordTokenUse(db, Date.now));
  return acceptedTokenDigests(db, env().SWITCHYARD_INGEST_TOKEN);
}

const limiterKey = Symbol.for("switchyard.loginLimiter");
type Holder = { [limiterKey]?: LoginLimiter };

/** The process's sign-in rate limiter (shared by every route bundle). */
export function loginLimiter(): LoginLimiter {
  const holder = globalThis as Holder;
  holder[limiterKey] ??= new LoginLimiter();
  return holder[limiterKey];
}
