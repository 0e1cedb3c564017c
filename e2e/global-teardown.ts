import fs from "node:fs";

/** Remove this run's e2e database (and its WAL files) and the signed-in state. */
export default function globalTeardown(): void {
  if (process.env.SWITCHYARD_E2E_STATE) fs.rmSync(process.env.SWITCHYARD_E2E_STATE, { force: true });
  const file = process.env.SWITCHYARD_E2E_DB;
  if (!file) return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
}
