import path from "node:path";
import postgres from "postgres";
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import * as schema from "./schema";

// The PostgreSQL store's connection: porsager's `postgres` driver under drizzle's pg dialect.

export type PgDb = PostgresJsDatabase<typeof schema> & { $client: postgres.Sql };

export const PG_MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "pg", "migrations");

/** int8 read as a JS number: every 64-bit column on PostgreSQL holds Unix ms or a count that fits 2^53. */
const int8AsNumber = {
  to: 20,
  from: [20],
  serialize: (v: number | bigint | string) => String(v),
  parse: (v: string) => Number(v),
};

export type PgOptions = {
  /** Pool size (connections); default 4. */
  max?: number;
  /** Seconds to wait for a connection before failing; default 10. */
  connectTimeoutSeconds?: number;
};

/** A pooled connection (lazy: nothing is opened until the first query). */
export function connectPg(url: string, options: PgOptions = {}): PgDb {
  const client = postgres(url, {
    max: options.max ?? 4,
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    onnotice: () => {},
    types: { int8: int8AsNumber },
  });
  return drizzle(client, { schema }) as PgDb;
}

/** Apply the committed PostgreSQL migrations, one process at a time (an advisory lock on its own connection). */
export async function migratePg(url: string, options: PgOptions = {}): Promise<void> {
  const one = connectPg(url, { ...options, max: 1 });
  try {
    await one.$client`SELECT pg_advisory_lock(hashtext('switchyard.migrate'))`;
    await migrate(one, { migrationsFolder: PG_MIGRATIONS_FOLDER });
  } finally {
    await one.$client.end({ timeout: 5 });
  }
}

/** Connect and migrate; throws the driver's error when the server cannot be reached or refuses. */
export async function openPg(url: string, options: PgOptions = {}): Promise<PgDb> {
  await migratePg(url, options);
  return connectPg(url, options);
}

/** Connection-level failures (the server cannot be reached, went away, or is starting or shutting down). */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "53300", // too_many_connections
]);

/**
 * True when an error (or one it wraps as `cause`, as drizzle's query errors do) says PostgreSQL is unreachable rather
 * than that it refused the statement: SQLSTATE class 08 and the codes above. Such a request may be retried as it was.
 */
export function isPgUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || code.startsWith("08"))) return true;
    if (e instanceof AggregateError && e.errors.some(isPgUnavailable)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Run `fn` in one transaction on a connection reserved from the pool: committed when it resolves, rolled back when it
 * throws (rethrown). Used instead of the driver's `sql.begin`, which after losing its connection still sends ROLLBACK
 * on it and hands it back to the pool, so that a later write on the dead socket throws from a timer (an uncaught
 * TypeError that would end the process). Here a connection found lost is neither written to nor released: the pool
 * has already put it among its closed connections, to reconnect when needed.
 */
export async function pgTransaction<T>(sql: postgres.Sql, fn: (tx: postgres.ReservedSql) => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  let lost = false;
  try {
    await conn`BEGIN`;
    const out = await fn(conn);
    await conn`COMMIT`;
    return out;
  } catch (err) {
    lost = isPgUnavailable(err);
    if (!lost)
      await conn`ROLLBACK`.catch((rollbackErr: unknown) => {
        lost = isPgUnavailable(rollbackErr);
      });
    throw err;
  } finally {
    if (!lost) conn.release();
  }
}
