import { requestActor } from "@/server/auth/request";
import { AppError } from "@/server/errors";
import { errorResponse } from "@/server/http";
import { ingestTokenAccepted, serverStore } from "@/server/runtime";
import { importAccess, importName, limitedBody, MAX_IMPORT_BYTES } from "@/server/sources/dynamo-trace/upload";
import { describeImport, importTraceInto } from "@/server/sources/dynamo-trace/run";
import { inCluster, serverIngest } from "@/server/ingest/seam";
import { CLUSTER_NAME, CLUSTER_NAME_RULE } from "@/server/ingest/event-bounds";
import { sourceReporter } from "@/server/sources/status";
import { DEFAULT_MOONCAKE_BLOCK_SIZE, importMooncakeInto } from "@/server/sources/mooncake/import";

export const runtime = "nodejs";

/** `?format=mooncake[&block_size=N][&start=<Unix ms>]`: a Mooncake trace; null: a Dynamo trace (the default). */
function mooncakeOptions(q: URLSearchParams): { blockSize: number; startMs: number | null } | null {
  const format = q.get("format");
  if (format === null || format === "dynamo") return null;
  if (format !== "mooncake") throw new AppError("BAD_REQUEST", "format: must be dynamo or mooncake");
  const int = (key: string, min: number, max: number): number | null => {
    const raw = q.get(key);
    if (raw === null) return null;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new AppError("BAD_REQUEST", `${key}: must be an integer from ${min} to ${max}`);
    return n;
  };
  return {
    blockSize: int("block_size", 1, 1_048_576) ?? DEFAULT_MOONCAKE_BLOCK_SIZE,
    startMs: int("start", 0, 8_640_000_000_000),
  };
}
/** `?cluster=NAME`: the cluster every event of the file belongs to (absent: each event's own, else `default`). */
function clusterOption(q: URLSearchParams): string | null {
  const cluster = q.get("cluster");
  if (cluster === null) return null;
  if (!CLUSTER_NAME.test(cluster)) throw new AppError("BAD_REQUEST", `cluster: ${CLUSTER_NAME_RULE}`);
  return cluster;
}
export const dynamic = "force-dynamic";

/**
 * POST one dynamo.agent.trace.v1 / dynamo.fpm.trace.v1 file (or, with ?format=mooncake, a Mooncake trace; ?cluster=NAME puts
 * its events in that cluster) (JSONL or gzip JSONL, raw bytes, streamed) with the ingest
 * token or by a signed-in operator from the dashboard itself; the file name comes from X-Switchyard-Filename. Replies with the import summary.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    const actor = await requestActor(serverStore(), req, Date.now());
    const tokenOk = await ingestTokenAccepted(req.headers.get("authorization"));
    const access = importAccess(
      req,
      () => tokenOk,
      () => actor,
    );
    if (access === "unauthorized")
      throw new AppError("UNAUTHORIZED", "sign in, or send the ingest token (Authorization: Bearer <token>)");
    if (access === "forbidden")
      throw new AppError("FORBIDDEN", "importing traces needs the operator role, from the dashboard itself");
    if (!req.body) throw new AppError("BAD_REQUEST", "the request has no body: send the trace file's bytes");
    const name = importName(req.headers.get("x-switchyard-filename"));
    const query = new URL(req.url).searchParams;
    const format = mooncakeOptions(query);
    const cluster = clusterOption(query);
    const body = limitedBody(req.body, MAX_IMPORT_BYTES);
    const sink = cluster === null ? serverIngest() : inCluster(serverIngest(), cluster);
    const summary = format
      ? await importMooncakeInto(sink, name, body, { ...format, now: Date.now() })
      : await importTraceInto(sink, name, body);
    const report = sourceReporter(sink.store, "trace-upload", "trace-upload", "Trace uploads");
    if (summary.fatal) await report.error(Date.now(), describeImport(summary));
    else await report.ok(Date.now(), { events: summary.accepted, detail: { last: describeImport(summary) } });
    return Response.json(summary);
  } catch (err) {
    return errorResponse(
      err,
      err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
    );
  }
}
