import fs from "node:fs";
import { E2E_PASSWORD } from "./fixtures/auth";
import { rememberedSecrets, secretsInLogs } from "./fixtures/secrets";
import { dropE2eDatabase } from "./global-pg";
import { errorLines } from "./fixtures/log-errors";

/**
 * Check that no dashboard's log holds a secret this run created, then remove this run's folder (SQLite files, key
 * files, logs), its PostgreSQL database if any, and the signed-in states. A find fails the run and keeps the folder.
 * Otherwise the logs' last error lines are printed first (the folder goes, CI's output stays).
 */
export default async function globalTeardown(): Promise<void> {
  const states = [
    process.env.SWITCHYARD_E2E_STATE,
    process.env.SWITCHYARD_E2E_SIM_STATE,
    process.env.SWITCHYARD_E2E_PG_STATE,
  ];
  for (const state of states) if (state) fs.rmSync(state, { force: true });
  const runDir = process.env.SWITCHYARD_E2E_RUN_DIR;
  // Read before the database goes: the PostgreSQL dashboard is still running, and its jobs' next queries fail then.
  const errors = runDir && fs.existsSync(runDir) ? errorLines(runDir) : [];
  const server = process.env.SWITCHYARD_TEST_DATABASE_URL;
  if (server && process.env.SWITCHYARD_E2E_PG_DB) await dropE2eDatabase(server, process.env.SWITCHYARD_E2E_PG_DB);
  if (!runDir || !fs.existsSync(runDir)) return;
  const secrets = [
    process.env.SWITCHYARD_E2E_TOKEN ?? "",
    process.env.SWITCHYARD_E2E_API_TOKEN ?? "",
    E2E_PASSWORD,
    ...rememberedSecrets(runDir),
  ].filter((s) => s.length >= 8);
  const found = secretsInLogs(runDir, secrets);
  if (found.length > 0)
    throw new Error(`secrets reached a dashboard log (kept in ${runDir} to read):\n${found.join("\n")}`);
  console.log(`e2e: no dashboard log holds any of the ${new Set(secrets).size} secrets this run created`);
  // Printed only once no secret was found in the logs.
  if (errors.length > 0) console.log(`e2e: dashboard errors (some are specs' own bad input):\n${errors.join("\n")}`);
  fs.rmSync(runDir, { recursive: true, force: true });
}
