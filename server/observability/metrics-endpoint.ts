import type { Store } from "../../db/store/store";
import { requestActor } from "../auth/request";
import { API_POLICY, COMMON_HEADERS } from "../auth/csp";
import { satisfies } from "../auth/roles";
import { isPgUnavailable } from "../../db/pg/client";
import { PG_RETRY_AFTER_SECONDS } from "../ingest/pg/unavailable";
import { metrics, refreshFromStore } from "./metrics";

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
 * session (401 otherwise; a token without read scope gets 403). The gauges read from the store (attribution,
 * rollouts, sources, size) are refreshed on either engine; sqliteFile is the SQLite database's path (null on
 * PostgreSQL), for its size. While PostgreSQL is unreachable: 503 with Retry-After (a scraper then marks the target
 * down for that scrape and tries again; a 500 would say Switchyard is broken).
 */
export async function metricsReply(
  s: Store,
  sqliteFile: string | null,
  headers: { authorization?: string; cookie?: string },
  now: number,
): Promise<MetricsReply> {
  try {
    return await reply(s, sqliteFile, headers, now);
  } catch (err) {
    if (!isPgUnavailable(err)) throw err;
    return json(503, "the database (PostgreSQL) is unreachable: no metrics until it returns", {
      "retry-after": String(PG_RETRY_AFTER_SECONDS),
    });
  }
}

const json = (status: number, error: string, extra: Record<string, string> = {}): MetricsReply => ({
  status,
  headers: { ...HEADERS, "content-type": "application/json", ...extra },
  body: JSON.stringify({ error }),
});

async function reply(
  s: Store,
  sqliteFile: string | null,
  headers: { authorization?: string; cookie?: string },
  now: number,
): Promise<MetricsReply> {
  const req = new Request("http://localhost/metrics", {
    headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v)) as Record<string, string>,
  });
  const actor = await requestActor(s, req, now);
  if (!actor)
    return json(401, "sign in or send an API token with read scope (Authorization: Bearer <token>)", {
      "www-authenticate": "Bearer",
    });
  if (!satisfies(actor.role, "viewer")) return json(403, "this token cannot read metrics");
  await refreshFromStore(s, sqliteFile);
  const { registry } = metrics();
  return { status: 200, headers: { ...HEADERS, "content-type": registry.contentType }, body: await registry.metrics() };
}
