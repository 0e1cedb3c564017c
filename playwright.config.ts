import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { TEST_SECRET_KEY } from "./test/secret-key";
import { nodeArgs } from "./server/compiled";

// One dashboard on a fresh SQLite file per run (removed at the end), and with SWITCHYARD_TEST_DATABASE_URL one more on
// a fresh PostgreSQL database; workers inherit these through the environment.
// One folder per run holds the SQLite files, the key file each SQLite dashboard makes beside its database, the
// dashboards' logs and the secrets the specs created (global teardown checks no log holds one, then removes the folder).
process.env.SWITCHYARD_E2E_RUN_DIR ??= path.join(os.tmpdir(), `switchyard-e2e-${process.pid}-${Date.now()}`);
const runDir = process.env.SWITCHYARD_E2E_RUN_DIR;
fs.mkdirSync(runDir, { recursive: true });
process.env.SWITCHYARD_E2E_DB ??= path.join(runDir, "switchyard-e2e.db");
process.env.SWITCHYARD_E2E_PORT ??= "3210";
process.env.SWITCHYARD_E2E_TOKEN ??= "e2e-ingest-token-0123456789abcdef";
// An admin API token the empty e2e database is created with; global setup uses it to make the signed-in admin.
process.env.SWITCHYARD_E2E_API_TOKEN ??= "e2e-admin-api-token-0123456789abcdef";
process.env.SWITCHYARD_E2E_STATE ??= path.join(os.tmpdir(), `switchyard-e2e-admin-${process.pid}-${Date.now()}.json`);

const port = Number(process.env.SWITCHYARD_E2E_PORT);

// The specs that drive a simulated cluster in real time (minutes each, mostly waiting) run on a dashboard and SQLite
// file of their own beside the other SQLite specs (project "sqlite-sim"), so their waits overlap the rest.
process.env.SWITCHYARD_E2E_SIM_DB ??= `${process.env.SWITCHYARD_E2E_DB.replace(/\.db$/, "")}-sim.db`;
process.env.SWITCHYARD_E2E_SIM_PORT ??= String(port + 200);
process.env.SWITCHYARD_E2E_SIM_STATE ??= process.env.SWITCHYARD_E2E_STATE.replace(/\.json$/, "-sim.json");
const simPort = Number(process.env.SWITCHYARD_E2E_SIM_PORT);
const SIM_SPECS = [
  "alerts.spec.ts",
  "cluster-sim.spec.ts",
  "fleet.spec.ts",
  "policy-effects.spec.ts",
  "policy-guard.spec.ts",
  "tiers-sim.spec.ts",
];

// With SWITCHYARD_TEST_DATABASE_URL set (CI, `npm run test:pg`'s server) a second dashboard runs on a fresh database
// of that PostgreSQL server, and the specs whose pages run there run against it too (project "postgresql").
const pgServer = process.env.SWITCHYARD_TEST_DATABASE_URL || undefined;
if (pgServer) {
  process.env.SWITCHYARD_E2E_PG_DB ??= `sw_e2e_${process.pid}_${Date.now()}`;
  process.env.SWITCHYARD_E2E_PG_PORT ??= String(port + 100);
  process.env.SWITCHYARD_E2E_PG_STATE ??= path.join(
    os.tmpdir(),
    `switchyard-e2e-pg-admin-${process.pid}-${Date.now()}.json`,
  );
}
const pgPort = Number(process.env.SWITCHYARD_E2E_PG_PORT);

/** Specs that run on the PostgreSQL dashboard instead of the SQLite one when there is one: they check pages, not the
 * engine, and the "sqlite" project is the longest (this evens the projects out). */
const PG_INSTEAD_SPECS = ["a11y-loading.spec.ts"];

/** The specs run on PostgreSQL as well (the rest run on SQLite only, to keep the suite within CI's time). */
const PG_SPECS = [
  "overview.spec.ts",
  "workers.spec.ts",
  "policies.spec.ts",
  "session-timeline.spec.ts",
  "routing.spec.ts",
  "sessions.spec.ts",
  "sessions-url.spec.ts",
  "planner.spec.ts",
  "tiers.spec.ts",
  "sources.spec.ts",
  "import.spec.ts",
  "capacity.spec.ts",
];

const dashboardEnv = {
  // Planner files and watched trace folders of the specs stay inside this run's folder.
  SWITCHYARD_TARGET_DIR: path.join(runDir, "targets"),
  SWITCHYARD_IMPORT_DIR: path.join(runDir, "imports"),
  SWITCHYARD_INGEST_TOKEN: process.env.SWITCHYARD_E2E_TOKEN,
  SWITCHYARD_BOOTSTRAP_API_TOKEN: process.env.SWITCHYARD_E2E_API_TOKEN,
  NODE_ENV: "production",
  NEXT_TELEMETRY_DISABLED: "1",
  // Alert rules evaluated every 2 s, so the alerts spec sees a page within seconds.
  SWITCHYARD_ALERT_EVALUATE_SECONDS: "2",
};

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  globalTeardown: "./e2e/global-teardown.ts",
  fullyParallel: false,
  // One test at a time per dashboard (specs share its database), the projects side by side: each has a dashboard and a
  // database of its own, and most of a spec's time is waiting for pages, polls and simulated minutes.
  workers: pgServer ? 3 : 2,
  retries: process.env.CI ? 1 : 0,
  // The PostgreSQL project's workers spec took 58 s once in a full run (12 s alone): CI gives a test twice as long.
  timeout: process.env.CI ? 120_000 : 60_000,
  // CI's machine runs three dashboards, their browsers, a simulator and PostgreSQL on 2 cores, and a page there has
  // taken over 10 s to draw now and then (each passed on retry). These waits check what a page shows, not how fast:
  // speed has its benchmarks.
  expect: { timeout: process.env.CI ? 20_000 : 10_000 },
  // The list, then the page as it was under each failure (CI keeps only the output).
  reporter: [["list"], ["./e2e/fixtures/page-on-failure.ts"]],
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
  projects: [
    { name: "sqlite", testIgnore: pgServer ? [...SIM_SPECS, ...PG_INSTEAD_SPECS] : SIM_SPECS, workers: 1 },
    {
      name: "sqlite-sim",
      testMatch: SIM_SPECS,
      workers: 1,
      use: { baseURL: `http://localhost:${simPort}`, storageState: process.env.SWITCHYARD_E2E_SIM_STATE },
    },
    ...(pgServer
      ? [
          {
            name: "postgresql",
            testMatch: [...PG_SPECS, ...PG_INSTEAD_SPECS],
            workers: 1,
            use: { baseURL: `http://localhost:${pgPort}`, storageState: process.env.SWITCHYARD_E2E_PG_STATE },
          },
        ]
      : []),
  ],
  webServer: [
    {
      command: `node ${nodeArgs("dashboard").join(" ")} > "${path.join(runDir, "dashboard-sqlite.log")}" 2>&1`,
      url: `http://localhost:${port}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: { ...dashboardEnv, PORT: String(port), SWITCHYARD_DB: process.env.SWITCHYARD_E2E_DB },
    },
    {
      command: `node ${nodeArgs("dashboard").join(" ")} > "${path.join(runDir, "dashboard-sqlite-sim.log")}" 2>&1`,
      url: `http://localhost:${simPort}/api/health`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: { ...dashboardEnv, PORT: String(simPort), SWITCHYARD_DB: process.env.SWITCHYARD_E2E_SIM_DB },
    },
    ...(pgServer
      ? [
          {
            command: `npx tsx e2e/global-pg.ts > "${path.join(runDir, "dashboard-postgresql.log")}" 2>&1`,
            url: `http://localhost:${pgPort}/api/health`,
            reuseExistingServer: false,
            timeout: 90_000,
            env: {
              ...dashboardEnv,
              PORT: String(pgPort),
              // Never opened (the dashboard on PostgreSQL opens no SQLite file); set so a mistake would show here.
              SWITCHYARD_DB: `${process.env.SWITCHYARD_E2E_DB}.not-on-pg`,
              SWITCHYARD_TEST_DATABASE_URL: pgServer,
              SWITCHYARD_E2E_PG_DB: process.env.SWITCHYARD_E2E_PG_DB!,
              // Required on PostgreSQL: the key of the secrets stored in the database.
              SWITCHYARD_SECRET_KEY: TEST_SECRET_KEY,
            },
          },
        ]
      : []),
  ],
});
