// The e2e dashboard on PostgreSQL (playwright.config.ts starts it when SWITCHYARD_TEST_DATABASE_URL is set): a fresh
// database on that server, the dashboard process on it, and the accounts the specs sign in with.
import { spawn } from "node:child_process";
import postgres from "postgres";
import { connectPg } from "../db/pg/client";
import { pgStore } from "../db/store/store";
import { seedAccounts } from "../test/processes";
import { nodeArgs } from "../server/compiled";

/** The e2e database's URL: the server's URL with the database named. */
export function e2eDatabaseUrl(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Create the e2e database (empty; the dashboard migrates it at start). */
export async function createE2eDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Drop the e2e database, cutting the connections still open to it. */
export async function dropE2eDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** The e2e admin and the bootstrap API token, written into the store (test/processes.ts's seedAccounts). */
export async function seedE2eAccounts(
  url: string,
  a: { username: string; password: string; apiToken: string },
): Promise<void> {
  const pg = connectPg(url, { max: 1 });
  try {
    await seedAccounts(pgStore(pg), { adminToken: a.apiToken, demoPassword: a.password, username: a.username });
  } finally {
    await pg.$client.end({ timeout: 5 });
  }
}

/** Run as the web server command: create the database, then run the dashboard on it until this process is stopped. */
async function main(): Promise<void> {
  const server = process.env.SWITCHYARD_TEST_DATABASE_URL!;
  const name = process.env.SWITCHYARD_E2E_PG_DB!;
  await createE2eDatabase(server, name);
  const child = spawn(process.execPath, nodeArgs("dashboard"), {
    stdio: "inherit",
    env: { ...process.env, SWITCHYARD_DATABASE_URL: e2eDatabaseUrl(server, name) },
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.argv[1]?.endsWith("global-pg.ts")) void main();
