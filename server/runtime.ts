import { sharedDb, type Db } from "../db/sqlite/client";
import { AppError } from "./errors";
import { connectPg, type PgDb } from "../db/pg/client";
import { pgStore, sqliteStore, type Store } from "../db/store/store";
import { LoginLimiter } from "./auth/rate-limit";
import { env } from "./env";
import { ingestTokenMatch, noteUse } from "./auth/tokens";
import { errorMessage, log } from "./observability/logger";

/** Which engine the server process stores in: PostgreSQL when SWITCHYARD_DATABASE_URL is set, else SQLite. */
export function serverEngine(): "sqlite" | "pg" {
  return env().SWITCHYARD_DATABASE_URL ? "pg" : "sqlite";
}

/**
 * The server process's SQLite connection (opened and migrated on first use). With SWITCHYARD_DATABASE_URL set no
 * SQLite file is opened: this is a stand-in whose every use throws notOnPg's error, so a procedure or route not yet
 * ported to the store answers that clearly instead of reading an empty file.
 */
export function serverDb(): Db {
  return env().SWITCHYARD_DATABASE_URL ? sqliteStandIn : sharedDb(env().SWITCHYARD_DB);
}

/** The message of what a SQLite-only procedure or route answers on PostgreSQL. */
export const NOT_ON_PG = "not available on PostgreSQL yet (this dashboard stores in SWITCHYARD_DATABASE_URL)";

/** The error a SQLite-only path throws on PostgreSQL: a client-visible 422, not a masked 500. */
export function notOnPg(): AppError {
  return new AppError("UNPROCESSABLE", NOT_ON_PG);
}

/** A Db that is never opened: reading any member throws notOnPg() (passing it around does not). */
const sqliteStandIn = new Proxy(Object.create(null) as Db, {
  get(_target, member) {
    // Promise resolution and inspection probe these; answering them keeps `await x` and logging from throwing.
    if (member === "then" || typeof member === "symbol") return undefined;
    throw notOnPg();
  },
  has: () => false,
});

const pgKey = Symbol.for("switchyard.serverPg");
type PgHolder = { [pgKey]?: { url: string; pg: PgDb; store: Store } };

/**
 * The server process's PostgreSQL pool when SWITCHYARD_DATABASE_URL is set, else null: one pool per process (shared
 * by the server entry and Next's route bundles), connecting lazily; engine-start migrated it before anything served.
 */
export function serverPg(): PgDb | null {
  return pgHandle()?.pg ?? null;
}

function pgHandle(): { pg: PgDb; store: Store } | null {
  const url = env().SWITCHYARD_DATABASE_URL;
  if (!url) return null;
  const holder = globalThis as PgHolder;
  const current = holder[pgKey];
  if (current && current.url === url) return current;
  // A short connect timeout: while the server is unreachable, ingest answers 503 soon rather than holding senders.
  const pg = connectPg(url, { max: 8, connectTimeoutSeconds: 5 });
  holder[pgKey] = { url, pg, store: pgStore(pg) };
  return holder[pgKey];
}

/** The server process's store: PostgreSQL's when SWITCHYARD_DATABASE_URL is set, else the SQLite file's. */
export function serverStore(): Store {
  return pgHandle()?.store ?? sqliteStore(serverDb());
}

/**
 * Whether an Authorization header carries a token that may ingest right now (read from the store on every call,
 * so a revoked token stops at once: one indexed query); an accepted token gets its last-used time recorded.
 */
export async function ingestTokenAccepted(header: string | null): Promise<boolean> {
  const s = serverStore();
  const digest = await ingestTokenMatch(s, header, env().SWITCHYARD_INGEST_TOKEN);
  if (digest) noteUseAtMostPerMinute(s, digest, Date.now());
  return digest !== null;
}

const notedKey = Symbol.for("switchyard.ingestTokenNoted");
type NotedHolder = { [notedKey]?: WeakMap<Store, Map<string, number>> };

/**
 * The store keeps last use to the minute; on SQLite an UPDATE takes the write lock even when it changes nothing, so
 * on the event loop it would wait for every ingest batch being written. Noted at most once a minute per token here.
 */
function noteUseAtMostPerMinute(s: Store, digest: string, now: number): void {
  const byStore = ((globalThis as NotedHolder)[notedKey] ??= new WeakMap());
  let noted = byStore.get(s);
  if (!noted) byStore.set(s, (noted = new Map()));
  if (now - (noted.get(digest) ?? -Infinity) < 60_000) return;
  noted.set(digest, now);
  noteUse(s, digest, now).catch((err: unknown) =>
    log().warn({ err: errorMessage(err) }, "token last use could not be recorded"),
  );
}

/** The sign-in rate limiter over the server's store (its counts live there, shared by every process). */
export function loginLimiter(): LoginLimiter {
  return new LoginLimiter(serverStore());
}
