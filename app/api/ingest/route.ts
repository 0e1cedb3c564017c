import { AppError } from "@/server/errors";
import { errorResponse, readBodyLimited } from "@/server/http";
import { isIngestMediaType, MAX_BYTES, mediaType } from "@/server/ingest/batch";
import { ingestBody } from "@/server/ingest/ingest";
import { bearerMatches } from "@/server/ingest/token";
import { ingestDigests, serverDb } from "@/server/runtime";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST switchyard.telemetry.v1 events (NDJSON or a JSON array) with a bearer ingest token. */
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
    return Response.json(ingestBody(serverDb(), text, contentType));
  } catch (err) {
    return errorResponse(err, err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined);
  }
}
