import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { migratePg, openPg, PG_MIGRATIONS_FOLDER, type PgDb } from "../db/pg/client";

// PostgreSQL in tests: SWITCHYARD_TEST_DATABASE_URL names a server (`npm run test:pg` and .ci/run set it); without it
// the PostgreSQL suites are skipped (vitest's global setup prints why, test/pg-global-setup.ts).

export const PG_TEST_URL = process.env.SWITCHYARD_TEST_DATABASE_URL || undefined;

export const PG_SKIP_REASON =
  "PostgreSQL tests skipped: SWITCHYARD_TEST_DATABASE_URL is not set (`npm run test:pg` runs them on a throwaway server)";

const dbUrl = (serverUrl: string, name: string) => {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Retry a statement that fails while a just-closed connection's backend is still exiting. */
async function whenUnused(run: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await run();
      return;
    } catch (e) {
      if (attempt >= 50 || !/being accessed by other users/.test(String(e))) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * The migrated template database on the test server, made once per set of migrations (its name carries their digest)
 * by whichever test process asks first; the others wait on an advisory lock. A copy of it is a tenth of the cost of
 * migrating an empty database, and hundreds of tests each take a fresh one.
 */
async function makeTemplate(serverUrl: string): Promise<string> {
  const digest = createHash("sha256");
  for (const f of (fs.readdirSync(PG_MIGRATIONS_FOLDER, { recursive: true }) as string[]).sort()) {
    const full = path.join(PG_MIGRATIONS_FOLDER, f);
    if (fs.statSync(full).isFile()) digest.update(f).update(fs.readFileSync(full));
  }
  const name = `sw_template_${digest.digest("hex").slice(0, 16)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`SELECT pg_advisory_lock(hashtext('switchyard.test-template'))`;
    const [have] = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (!have) {
      const building = `${name}_${process.pid}`;
      await admin.unsafe(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await admin.unsafe(`CREATE DATABASE "${building}"`);
      await migratePg(dbUrl(serverUrl, building));
      await whenUnused(() => admin.unsafe(`ALTER DATABASE "${building}" RENAME TO "${name}"`));
      await admin.unsafe(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true`);
    }
  } finally {
    await admin.end({ timeout: 5 }); // and with the session, its advisory lock
  }
  return name;
}

const templates = new Map<string, Promise<string>>();

/** A new, migrated database on the test server (one per test file or test, so parallel files never share rows). */
export async function freshPg(
  serverUrl: string | undefined = PG_TEST_URL,
): Promise<{ pg: PgDb; url: string; drop: () => Promise<void> }> {
  if (!serverUrl) throw new Error(PG_SKIP_REASON);
  const name = `sw_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  let template = templates.get(serverUrl);
  if (!template) templates.set(serverUrl, (template = makeTemplate(serverUrl)));
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${name}" TEMPLATE "${await template}"`);
  const url = dbUrl(serverUrl, name);
  const pg = await openPg(url, { max: 4 }); // finds every migration applied (the template's), and checks so
  const drop = async () => {
    await pg.$client.end({ timeout: 5 });
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end({ timeout: 5 });
  };
  return { pg, url, drop };
}
