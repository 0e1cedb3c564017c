import postgres from "postgres";
import { freshPg } from "./pg";
import { TEST_SECRET_KEY } from "./secret-key";
import { useTempServerEnv } from "./server-env";

/**
 * Route tests on PostgreSQL: the server's environment pointed at a fresh database (SWITCHYARD_DATABASE_URL) with the
 * ingest token set, and a connection of the test's own. `close` ends the server's and the test's connections, drops
 * the database and restores the environment. Import the route after this resolves.
 */
export async function useTempServerPg(
  prefix: string,
  token: string,
): Promise<{ sql: postgres.Sql; close: () => Promise<void> }> {
  const { restore } = await useTempServerEnv(prefix, token);
  const made = await freshPg();
  await made.pg.$client.end({ timeout: 5 });
  process.env.SWITCHYARD_DATABASE_URL = made.url;
  process.env.SWITCHYARD_SECRET_KEY ??= TEST_SECRET_KEY;
  const sql = postgres(made.url, { max: 1, onnotice: () => {} });
  const close = async () => {
    const { serverEngine } = await import("@/server/runtime");
    await serverEngine().pg?.$client.end({ timeout: 5 });
    await sql.end({ timeout: 5 });
    await made.drop();
    delete process.env.SWITCHYARD_DATABASE_URL;
    await restore();
  };
  return { sql, close };
}
