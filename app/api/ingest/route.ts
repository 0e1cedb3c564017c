import { AppError } from "@/server/errors";
import { errorResponse, readBodyLimited } from "@/server/http";
import { type Db, isBusy } from "@/db/client";
import { recordSourceOk } from "@/db/queries/source-registry";
import { recordDroppedEvents } from "@/db/queries/sources";
import { isIngestMediaType, MAX_BYTES, mediaType } from "@/server/ingest/batch";
import { parseDroppedHeader, parseSourceHeader } from "@/server/ingest/drops";
import { ingestBodyTallied } from "@/server/ingest/ingest";
import { ingestRunner } from "@/server/ingest/runner";
import { ingestTokenAccepted, serverDb } from "@/server/runtime";
import { recordIngest } from "@/server/observability/metrics";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * POST switchyard.telemetry.v1 events (NDJSON or a JSON array) with a bearer ingest token. A sender that had to
 * drop events reports its running total in X-Switchyard-Dropped-Events (named by X-Switchyard-Source).
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
    const db = serverDb();
    const source = parseSourceHeader(req.headers.get("x-switchyard-source"));
    const dropped = parseDroppedHeader(req.headers.get("x-switchyard-dropped-events"));
    if (dropped !== null) noteDrops(db, source, dropped);
    const runner = ingestRunner();
    const started = performance.now();
    const { json, tally } = runner ? await runner(text, contentType) : inline(db, text, contentType);
    recordIngest(source, tally, (performance.now() - started) / 1000, "api");
    noteSender(db, source, json);
    return new Response(json, { headers: { "content-type": "application/json" } });
  } catch (err) {
    return errorResponse(
      err,
      err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
    );
  }
}

function inline(db: Db, text: string, contentType: string) {
  const { reply, tally } = ingestBodyTallied(db, text, contentType);
  return { json: JSON.stringify(reply), tally };
}

/**
 * Show a sender on the Sources page (last data, events accepted) by the name in X-Switchyard-Source. A busy
 * write lock skips this batch's note; the sender's next batch records it.
 */
function noteSender(db: Db, source: string, reply: string) {
  const accepted = Number(/^\{"accepted":(\d+)/.exec(reply)?.[1] ?? 0);
  const name = source === "unknown" ? "Ingest API (sender without X-Switchyard-Source)" : `${source} (ingest API)`;
  try {
    recordSourceOk(db, { id: `ingest:${source}`, kind: "ingest", name }, Date.now(), { events: accepted });
  } catch (err) {
    if (!isBusy(err)) throw err;
  }
}

/** Record a sender's running dropped-events total; when the write lock is busy, its next batch reports it again. */
function noteDrops(db: Db, source: string, dropped: number) {
  try {
    recordDroppedEvents(db, source, dropped, Date.now());
  } catch (err) {
    if (!isBusy(err)) throw err;
  }
}
