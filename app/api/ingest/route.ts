import { AppError } from "@/server/errors";
import { errorResponse, readBodyLimited } from "@/server/http";
import type { Db } from "@/db/client";
import { isIngestMediaType, MAX_BYTES, mediaType } from "@/server/ingest/batch";
import { parseDroppedHeader, parseSourceHeader } from "@/server/ingest/drops";
import { ingestBodyTallied } from "@/server/ingest/ingest";
import { ingestRunner } from "@/server/ingest/runner";
import type { Sender } from "@/server/ingest/sender";
import { ingestTokenAccepted, serverDb } from "@/server/runtime";
import { recordIngest } from "@/server/observability/metrics";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST switchyard.telemetry.v1 events (NDJSON or a JSON array) with a bearer ingest token. A sender that had to
 * drop events reports its running total in X-Switchyard-Dropped-Events (named by X-Switchyard-Source). The sender is
 * recorded in the batch's own transaction (off the event loop when workers ingest), not in a write of its own here.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    if (!ingestTokenAccepted(req.headers.get("authorization"))) {
      throw new AppError("UNAUTHORIZED", "missing or wrong ingest token (Authorization: Bearer <token>)");
    }
    const contentType = mediaType(req.headers.get("content-type"));
    if (!isIngestMediaType(contentType)) {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/x-ndjson or application/json");
    }
    const text = await readBodyLimited(req, MAX_BYTES);
    const sender: Sender = {
      source: parseSourceHeader(req.headers.get("x-switchyard-source")),
      dropped: parseDroppedHeader(req.headers.get("x-switchyard-dropped-events")),
    };
    const runner = ingestRunner();
    const started = performance.now();
    const { json, tally } = runner
      ? await runner(text, contentType, sender)
      : inline(serverDb(), text, contentType, sender);
    recordIngest(sender.source, tally, (performance.now() - started) / 1000, "api");
    return new Response(json, { headers: { "content-type": "application/json" } });
  } catch (err) {
    return errorResponse(
      err,
      err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
    );
  }
}

function inline(db: Db, text: string, contentType: string, sender: Sender) {
  const { reply, tally } = ingestBodyTallied(db, text, contentType, { sender });
  return { json: JSON.stringify(reply), tally };
}
