import { sharedDb, type Db } from "../db/client";
import { sqliteStore, type Store } from "../db/store/store";
import { LoginLimiter } from "./auth/rate-limit";
import { env } from "./env";
import { ingestTokenDigests, noteUse } from "./auth/tokens";
import { matchedBearer } from "./ingest/token";
import { errorMessage, log } from "./observability/logger";

/** The server process's database connection (opened and migrated on first use). */
export function serverDb(): Db {
  return sharedDb(env().SWITCHYARD_DB);
}

/** The server process's store (the engine-neutral handle over serverDb; SQLite until the dashboard runs on pg). */
export function serverStore(): Store {
  return sqliteStore(serverDb());
}

/**
 * Whether an Authorization header carries a token that may ingest right now (read from the database on every call,
 * so a revoked token stops at once: one indexed query); an accepted token gets its last-used time recorded.
 */
export function ingestTokenAccepted(header: string | null): boolean {
  const db = serverDb();
  const digest = matchedBearer(header, ingestTokenDigests(db, env().SWITCHYARD_INGEST_TOKEN));
  if (digest) noteUseAtMostPerMinute(db, digest, Date.now());
  return digest !== null;
}

const notedKey = Symbol.for("switchyard.ingestTokenNoted");
type NotedHolder = { [notedKey]?: WeakMap<Db, Map<string, number>> };

/**
 * The store keeps last use to the minute; an UPDATE takes the write lock even when it changes nothing, so on the
 * event loop it would wait for every ingest batch being written. Noted at most once a minute per token here.
 */
function noteUseAtMostPerMinute(db: Db, digest: string, now: number): void {
  const byDb = ((globalThis as NotedHolder)[notedKey] ??= new WeakMap());
  let noted = byDb.get(db);
  if (!noted) byDb.set(db, (noted = new Map()));
  if (now - (noted.get(digest) ?? -Infinity) < 60_000) return;
  noted.set(digest, now);
  noteUse(sqliteStore(db), digest, now).catch((err: unknown) =>
    log().warn({ err: errorMessage(err) }, "token last use could not be recorded"),
  );
}

/** The sign-in rate limiter over the server database (its counts live there, shared by every process). */
export function loginLimiter(): LoginLimiter {
  return new LoginLimiter(serverStore());
}
