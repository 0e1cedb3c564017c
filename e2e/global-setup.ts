import fs from "node:fs";
import { request, type FullConfig } from "@playwright/test";
import { createUser, E2E_PASSWORD } from "./fixtures/auth";
import { e2eDatabaseUrl, seedE2eAccounts } from "./global-pg";

const ADMIN = "e2e-admin";

/**
 * Create the e2e admin on each project's dashboard and save its signed-in browser state for every spec: invited with
 * the bootstrap API token on SQLite, written into the store on PostgreSQL (its account pages are SQLite-only so far).
 */
export default async function globalSetup(config: FullConfig): Promise<void> {
  // Without the browser every spec fails alike with Playwright's launch error; say once what to install instead.
  const browser = config.projects[0]?.use.launchOptions?.executablePath;
  if (browser && !fs.existsSync(browser))
    throw new Error(
      `the browser tests need Chromium at ${browser}: install Debian's chromium (apt-get install chromium), ` +
        "or set CHROMIUM_PATH to a Chromium binary",
    );
  for (const project of config.projects) {
    const baseURL = project.use.baseURL!;
    if (project.name === "postgresql") {
      const url = e2eDatabaseUrl(process.env.SWITCHYARD_TEST_DATABASE_URL!, process.env.SWITCHYARD_E2E_PG_DB!);
      await seedE2eAccounts(url, {
        username: ADMIN,
        password: E2E_PASSWORD,
        apiToken: process.env.SWITCHYARD_E2E_API_TOKEN!,
      });
    } else await createUser(baseURL, ADMIN, "admin");
    const context = await request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    const res = await context.post("/api/auth/login", {
      headers: { Origin: baseURL },
      data: { username: ADMIN, password: E2E_PASSWORD },
    });
    if (res.status() !== 200)
      throw new Error(`e2e admin sign-in failed (${project.name}): ${res.status()} ${await res.text()}`);
    await context.storageState({ path: project.use.storageState as string });
    await context.dispose();
  }
}
