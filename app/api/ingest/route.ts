import { AppError } from "@/server/errors";
import { Admission } from "@/server/ingest/admission";
import { errorResponse, readBytesLimited } from "@/server/http";
import { isIngestMediaType, MAX_BYTES, mediaType } from "@/server/ingest/batch";
import { parseDroppedHeader, parseSourceHeader } from "@/server/ingest/drops";
import type { Sender } from "@/server/ingest/sender";
import { pgUnavailableResponse } from "@/server/ingest/pg/unavailable";
import { ingestTokenAccepted } from "@/server/runtime";
import { serverIngest } from "@/server/ingest/seam";
import { recordIngest } from "@/server/observability/metrics";

export const runtime = "nodejs";

const admission = new Admission();
export const dynamic = "force-dynamic";

/**
 * POST switchyard.telemetry.v1 events (NDJSON or a JSON array) with a bearer ingest token. A sender that had to
 * drop events reports its running total in X-Switchyard-Dropped-Events (named by X-Switchyard-Source). On SQLite the
 * sender is recorded in the batch's own transaction on either engine (on SQLite off the event loop when workers
 * ingest; on PostgreSQL, SWITCHYARD_DATABASE_URL, in the batch's transaction there). While PostgreSQL is unreachable
 * the reply is 503 with Retry-After.
 */
export async function POST(req: Request): Promise<Response> {
  let leave: (() => void) | null = null;
  try {
    if (!(await ingestTokenAccepted(req.headers.get("authorization")))) {
      throw new AppError("UNAUTHORIZED", "missing or wrong ingest token (Authorization: Bearer <token>)");
    }
    const contentType = mediaType(req.headers.get("content-type"));
    if (!isIngestMediaType(contentType)) {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/x-ndjson or application/json");
    }
    // Counted from before the body is read: a body held while read counts against the dashboard's memory too.
    leave = admission.enter();
    const body = await readBytesLimited(req, MAX_BYTES);
    const sender: Sender = {
      source: parseSourceHeader(req.headers.get("x-switchyard-source")),
      dropped: parseDroppedHeader(req.headers.get("x-switchyard-dropped-events")),
    };
    const started = performance.now();
    const { json, tally } = await serverIngest().body(body, contentType, sender);
    recordIngest(sender.source, tally, (performance.now() - started) / 1000, "api");
    return new Response(json, { headers: { "content-type": "application/json" } });
  } catch (err) {
    return (
      pgUnavailableResponse(err) ??
      errorResponse(
        err,
        err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
      )
    );
  } finally {
    leave?.();
  }
}
