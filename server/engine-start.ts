import { maskUrl } from "../lib/mask-url";
import { openPg } from "../db/pg/client";

// Which store engine the dashboard starts on. With SWITCHYARD_DATABASE_URL set, PostgreSQL must be reachable and is
// migrated before anything else starts; no SQLite file is opened then (serverEngine in server/runtime.ts).

export class EngineError extends Error {}

/**
 * Check the configured engine before anything else starts: with SWITCHYARD_DATABASE_URL set, connect and migrate
 * (EngineError naming the setting, password masked, when that fails). Resolves for SQLite without doing anything.
 */
export async function checkEngine(databaseUrl: string | undefined, connectTimeoutSeconds = 10): Promise<void> {
  if (databaseUrl === undefined) return;
  const shown = maskUrl(databaseUrl);
  try {
    const pg = await openPg(databaseUrl, { max: 1, connectTimeoutSeconds });
    await pg.$client.end({ timeout: 5 });
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, " ").replaceAll(databaseUrl, shown);
    throw new EngineError(`cannot use PostgreSQL at SWITCHYARD_DATABASE_URL=${shown}: ${why}`);
  }
}
