import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { openPg, type PgDb } from "../db/pg/client";

// PostgreSQL in tests: SWITCHYARD_TEST_DATABASE_URL names a server (`npm run test:pg` and .ci/run set it); without it
// the PostgreSQL suites are skipped (vitest's global setup prints why, test/pg-global-setup.ts).

export const PG_TEST_URL = process.env.SWITCHYARD_TEST_DATABASE_URL || undefined;

export const PG_SKIP_REASON =
  "PostgreSQL tests skipped: SWITCHYARD_TEST_DATABASE_URL is not set (`npm run test:pg` runs them on a throwaway server)";

/** A new, migrated database on the test server (one per test file or test, so parallel files never share rows). */
export async function freshPg(
  serverUrl: string | undefined = PG_TEST_URL,
): Promise<{ pg: PgDb; url: string; drop: () => Promise<void> }> {
  if (!serverUrl) throw new Error(PG_SKIP_REASON);
  const name = `sw_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const pg = await openPg(url, { max: 4 });
  const drop = async () => {
    await pg.$client.end({ timeout: 5 });
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end({ timeout: 5 });
  };
  return { pg, url, drop };
}
