import { maskUrl } from "../lib/mask-url";
import { openPg } from "../db/pg/client";

// Which store engine the dashboard may start on. PostgreSQL is reachable and migrated at start; its ingest storage
// (db/pg/, behind POST /api/ingest) and the engine-neutral store's first slice (db/store/: transactions, the leader
// lease, sign-in limits, sessions, token checks) exist, but pages, attribution, control and the other jobs do not run
// on it yet: the dashboard refuses to serve on it rather than show pages from nowhere.

export class EngineError extends Error {}

/** What runs on PostgreSQL so far, and what does not (the refusal's one line). */
export const PG_NOT_YET =
  "PostgreSQL holds the ingest tables (with their rollups and retention) and serves HTTP ingest (POST /api/ingest and its token check) and OTLP logs, the leader lease, sign-in limits, sessions and API-token checks, the control plane's store (policy versions, targets, rollout, guards), and the workers, routing, overview and sessions pages, the session trace and export and the impact windows so far; miss attribution, the planner, tiers, sources, previews and account pages, trace imports and the other background jobs do not run on it yet, so the dashboard does not start on it: unset SWITCHYARD_DATABASE_URL to use the SQLite file of SWITCHYARD_DB";

/**
 * Check the configured engine before anything else starts: with SWITCHYARD_DATABASE_URL set, connect and migrate
 * (EngineError naming the setting, password masked, when that fails), then refuse with what is not supported yet.
 * Resolves for SQLite.
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
  throw new EngineError(`SWITCHYARD_DATABASE_URL=${shown}: ${PG_NOT_YET}`);
}
