import { schemaVersion, type Db } from "@/db/sqlite/client";
import { pgSchemaVersion } from "@/db/pg/schema-version";
import { requestActor } from "@/server/auth/request";
import { leaderStatus, liveLease } from "@/server/jobs/leader";
import { serverEngine } from "@/server/runtime";
import { errorMessage, log } from "@/server/observability/logger";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Liveness and readiness: `{"status":"ok"}` while the database (PostgreSQL when SWITCHYARD_DATABASE_URL is set, else
 * the SQLite file) answers, else 503 `{"status":"error"}`. Only a signed-in user or an API token that may read (read,
 * operate or admin scope) also sees the details: the engine and schema version, which process leads background work
 * (`leader`: the live lease's holder and since, Unix ms; null while no process holds one) and this process's id and
 * whether it is that leader (`process`: null when this process takes no part in the election).
 */
export async function GET(req: Request): Promise<Response> {
  try {
    const { pg, db, store } = serverEngine();
    const schema = pg ? await pgSchemaVersion(pg) : sqliteSchema(db!);
    if (!(await requestActor(store, req, Date.now()))) return Response.json({ status: "ok" });
    const lease = await liveLease(store);
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
    log().error({ err: errorMessage(err) }, "health check failed");
    return Response.json({ status: "error" }, { status: 503 });
  }
}

function sqliteSchema(db: Db) {
  db.$client.prepare("SELECT 1").get();
  return schemaVersion(db);
}
