import { schemaVersion } from "@/db/client";
import { serverDb } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Liveness and readiness: the database answers and its schema version. */
export function GET(): Response {
  try {
    const db = serverDb();
    db.$client.prepare("SELECT 1").get();
    return Response.json({ status: "ok", database: "ok", schema: schemaVersion(db) });
  } catch (err) {
    console.error("health check failed:", err instanceof Error ? err.message : String(err));
    return Response.json({ status: "error", database: "unavailable" }, { status: 503 });
  }
}
