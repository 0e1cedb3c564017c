import { sharedDb, type Db } from "../db/sqlite/client";
import { connectPg, type PgDb } from "../db/pg/client";
import { pgStore, sqliteStore, type Store } from "../db/store/store";
import { LoginLimiter } from "./auth/rate-limit";
import { env } from "./env";
import { ingestTokenMatch, noteUse } from "./auth/tokens";
import { errorMessage, log } from "./observability/logger";

/**
 * The engine this process stores in, chosen once from the environment: PostgreSQL when SWITCHYARD_DATABASE_URL is set
 * (its pool, connecting lazily; engine-start migrated it before anything served), else the SQLite file SWITCHYARD_DB
 * (opened and migrated on first use). One per process, shared by the server entry and Next's route bundles; chosen
 * again only when those settings change (tests switch files). Everything reads and writes through `store`; `db` and
 * `pg` are for the few things one engine alone has.
 */
export type ServerEngine =
  { engine: "sqlite"; db: Db; pg: null; store: Store } | { engine: "pg"; db: null; pg: PgDb; store: Store };

const engineKey = Symbol.for("switchyard.serverEngine");
type EngineHolder = { [engineKey]?: { key: string; engine: ServerEngine } };

export function serverEngine(): ServerEngine {
  const url = env().SWITCHYARD_DATABASE_URL;
  const key = url ? `pg:${url}` : `sqlite:${env().SWITCHYARD_DB}`;
  const holder = globalThis as EngineHolder;
  const current = holder[engineKey];
  if (current && current.key === key) return current.engine;
  let engine: ServerEngine;
  if (url) {
    // A short connect timeout: while the server is unreachable, ingest answers 503 soon rather than holding senders.
    const pg = connectPg(url, { max: 8, connectTimeoutSeconds: 5 });
    engine = { engine: "pg", db: null, pg, store: pgStore(pg) };
  } else {
    const db = sharedDb(env().SWITCHYARD_DB);
    engine = { engine: "sqlite", db, pg: null, store: sqliteStore(db) };
  }
  holder[engineKey] = { key, engine };
  return engine;
}

/** The server process's store (serverEngine's). */
export function serverStore(): Store {
  return serverEngine().store;
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
