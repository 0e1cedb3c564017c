import type { Db } from "../../db/client";
import { sqliteStore, type Store } from "../../db/store/store";
import { requestActor } from "../auth/request";
import { API_POLICY, COMMON_HEADERS } from "../auth/csp";
import { satisfies } from "../auth/roles";
import { metrics, refreshFromDb } from "./metrics";

/** Headers every answer of /metrics carries: those Next adds to API routes (this one is served beside Next). */
const HEADERS: Record<string, string> = {
  ...Object.fromEntries(COMMON_HEADERS),
  "content-security-policy": API_POLICY,
  "cache-control": "no-store",
};

/** A reply of GET /metrics, ready to write. */
export type MetricsReply = { status: number; headers: Record<string, string>; body: string };

/**
 * GET /metrics: Switchyard's own metrics in the Prometheus text format, for a read-scope API token or a signed-in
 * session (401 otherwise; a token without read scope gets 403). The gauges read from the database (attribution,
 * rollouts, sources, file size) are refreshed on SQLite only; on PostgreSQL (`store` given) they keep their last
 * values (none) and the counters this process keeps (HTTP, ingest) are served.
 */
export async function metricsReply(
  store: Store | null,
  db: Db,
  headers: { authorization?: string; cookie?: string },
  now: number,
): Promise<MetricsReply> {
  const req = new Request("http://localhost/metrics", {
    headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v)) as Record<string, string>,
  });
  const s = store ?? sqliteStore(db);
  const actor = await requestActor(s, req, now);
  const json = (status: number, error: string, extra: Record<string, string> = {}) => ({
    status,
    headers: { ...HEADERS, "content-type": "application/json", ...extra },
    body: JSON.stringify({ error }),
  });
  if (!actor)
    return json(401, "sign in or send an API token with read scope (Authorization: Bearer <token>)", {
      "www-authenticate": "Bearer",
    });
  if (!satisfies(actor.role, "viewer")) return json(403, "this token cannot read metrics");
  if (s.engine === "sqlite") refreshFromDb(db);
  const { registry } = metrics();
  return { status: 200, headers: { ...HEADERS, "content-type": registry.contentType }, body: await registry.metrics() };
}
