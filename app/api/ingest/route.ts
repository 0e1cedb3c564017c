import { AppError } from "@/server/errors";
import { errorResponse, readBodyLimited } from "@/server/http";
import type { Db } from "@/db/client";
import { recordDroppedEvents } from "@/db/queries/sources";
import { isIngestMediaType, MAX_BYTES, mediaType } from "@/server/ingest/batch";
import { parseDroppedHeader, parseSourceHeader } from "@/server/ingest/drops";
import { ingestBody } from "@/server/ingest/ingest";
import { ingestRunner } from "@/server/ingest/runner";
import { bearerMatches } from "@/server/ingest/token";
import { ingestDigests, serverDb } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST switchyard.telemetry.v1 events (NDJSON or a JSON array) with a bearer ingest token. A sender that had to
 * drop events reports its running total in X-Switchyard-Dropped-Events (named by X-Switchyard-Source).
 */
export async function POST(req: Request): Promise<Response> {
  try {
    if (!bearerMatches(req.headers.get("authorization"), ingestDigests())) {
      throw new AppError("UNAUTHORIZED", "missing or wrong ingest token (Authorization: Bearer <token>)");
    }
    const contentType = mediaType(req.headers.get("content-type"));
    if (!isIngestMediaType(contentType)) {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/x-ndjson or application/json");
    }
    const text = await readBodyLimited(req, MAX_BYTES);
    const db = serverDb();
    const dropped = parseDroppedHeader(req.headers.get("x-switchyard-dropped-events"));
    if (dropped !== null) noteDrops(db, parseSourceHeader(req.headers.get("x-switchyard-source")), dropped);
    const runner = ingestRunner();
    const json = runner ? await runner(text, contentType) : JSON.stringify(ingestBody(db, text, contentType));
    return new Response(json, { headers: { "content-type": "application/json" } });
  } catch (err) {
    return errorResponse(err, err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined);
  }
}

/** Record a sender's running dropped-events total; when the write lock is busy, its next batch reports it again. */
function noteDrops(db: Db, source: string, dropped: number) {
  try {
    recordDroppedEvents(db, source, dropped, Date.now());
  } catch (err) {
    if ((err as { code?: string }).code !== "SQLITE_BUSY") throw err;
  }
}
