import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// One dashboard on a fresh database per run (removed at the end); workers inherit these through the environment.
process.env.SWITCHYARD_E2E_DB ??= path.join(os.tmpdir(), `switchyard-e2e-${process.pid}-${Date.now()}.db`);
process.env.SWITCHYARD_E2E_PORT ??= "3210";
process.env.SWITCHYARD_E2E_TOKEN ??= "e2e-ingest-token-0123456789abcdef";
// An admin API token the empty e2e database is created with; global setup uses it to make the signed-in admin.
process.env.SWITCHYARD_E2E_API_TOKEN ??= "e2e-admin-api-token-0123456789abcdef";
process.env.SWITCHYARD_E2E_STATE ??= path.join(os.tmpdir(), `switchyard-e2e-admin-${process.pid}-${Date.now()}.json`);

const port = Number(process.env.SWITCHYARD_E2E_PORT);

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  globalTeardown: "./e2e/global-teardown.ts",
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL: `http://localhost:${port}`,
    // Every spec runs signed in as the admin global setup created; auth specs start signed-out contexts themselves.
    storageState: process.env.SWITCHYARD_E2E_STATE,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
        "--disable-quic",
      ],
    },
  },
  webServer: {
    command: "npx tsx server/main.ts",
    url: `http://localhost:${port}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      PORT: String(port),
      SWITCHYARD_DB: process.env.SWITCHYARD_E2E_DB,
      SWITCHYARD_INGEST_TOKEN: process.env.SWITCHYARD_E2E_TOKEN,
      SWITCHYARD_BOOTSTRAP_API_TOKEN: process.env.SWITCHYARD_E2E_API_TOKEN,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
