import fs from "node:fs";
import { dropE2eDatabase } from "./global-pg";

/** Remove this run's e2e SQLite files (and their WAL files), its PostgreSQL database if any, and the signed-in states. */
export default async function globalTeardown(): Promise<void> {
  const states = [
    process.env.SWITCHYARD_E2E_STATE,
    process.env.SWITCHYARD_E2E_SIM_STATE,
    process.env.SWITCHYARD_E2E_PG_STATE,
  ];
  for (const state of states) if (state) fs.rmSync(state, { force: true });
  const server = process.env.SWITCHYARD_TEST_DATABASE_URL;
  if (server && process.env.SWITCHYARD_E2E_PG_DB) await dropE2eDatabase(server, process.env.SWITCHYARD_E2E_PG_DB);
  for (const file of [process.env.SWITCHYARD_E2E_DB, process.env.SWITCHYARD_E2E_SIM_DB])
    if (file) for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
}
