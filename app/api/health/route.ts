import { schemaVersion } from "@/db/client";
import { pgSchemaVersion } from "@/db/pg/schema-version";
import { leaderStatus, liveLease } from "@/server/jobs/leader";
import { serverDb, serverPg, serverStore } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Liveness and readiness: the database (PostgreSQL when SWITCHYARD_DATABASE_URL is set, else the SQLite file) answers
 * and its schema version (`engine` says which); which process leads background work
 * (`leader`: the live lease's holder and since, Unix ms; null while no process holds one) and this process's id and
 * whether it is that leader (`process`: null when this process takes no part in the election).
 */
export async function GET(): Promise<Response> {
  try {
    const pg = serverPg();
    const schema = pg ? await pgSchemaVersion(pg) : sqliteSchema();
    const lease = await liveLease(serverStore());
    const self = leaderStatus();
    return Response.json({
      status: "ok",
      database: "ok",
      engine: pg ? "postgresql" : "sqlite",
      schema,
      leader: lease && {
        holder: lease.holder,
        since: lease.since,
        this_process: self?.leading === true && lease.holder === self.holder,
      },
      process: self && { id: self.holder, leading: self.leading },
    });
  } catch (err) {
    console.error("health check failed:", err instanceof Error ? err.message : String(err));
    return Response.json({ status: "error", database: "unavailable" }, { status: 503 });
  }
}

function sqliteSchema() {
  const db = serverDb();
  db.$client.prepare("SELECT 1").get();
  return schemaVersion(db);
}
