import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * Point this process's server settings at a fresh temp database and an ingest token, for route handlers tested
 * in-process (set before the route module is imported: settings are read once). `restore` puts the old ones back.
 */
export async function useTempServerEnv(
  prefix: string,
  token: string,
): Promise<{ file: string; restore: () => Promise<void> }> {
  const saved = { db: process.env.SWITCHYARD_DB, token: process.env.SWITCHYARD_INGEST_TOKEN };
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const file = path.join(dir, "switchyard.db");
  process.env.SWITCHYARD_DB = file;
  process.env.SWITCHYARD_INGEST_TOKEN = token;
  const restore = async () => {
    for (const [name, value] of [
      ["SWITCHYARD_DB", saved.db],
      ["SWITCHYARD_INGEST_TOKEN", saved.token],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await rm(dir, { recursive: true, force: true });
  };
  return { file, restore };
}
