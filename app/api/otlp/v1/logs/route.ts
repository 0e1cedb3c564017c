import { AppError } from "@/server/errors";
import { errorResponse, readBytesLimited } from "@/server/http";
import { mediaType } from "@/server/ingest/batch";
import { serverIngest } from "@/server/ingest/seam";
import { pgUnavailableResponse } from "@/server/ingest/pg/unavailable";
import { ingestTokenAccepted, serverStore } from "@/server/runtime";
import { encodeProtobufResponse } from "@/server/sources/otlp/decode";
import { decodedBody, MAX_OTLP_BYTES, parseLogsBody, receiveLogs } from "@/server/sources/otlp/receive";
import { sourceReporter } from "@/server/sources/status";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const OTLP_SOURCE = { id: "otlp", kind: "otlp", name: "Harness OTLP logs" } as const;

/**
 * OTLP/HTTP logs (ExportLogsServiceRequest, JSON or protobuf, optionally gzip) from Claude Code and Codex with the bearer
 * ingest token. Replies with an ExportLogsServiceResponse in the request's encoding; refused records are counted in
 * partialSuccess.rejectedLogRecords with the first reasons in errorMessage. Stored on PostgreSQL when
 * SWITCHYARD_DATABASE_URL is set (503 with Retry-After while it is unreachable), else in the SQLite file.
 */
export async function POST(req: Request): Promise<Response> {
  const type = mediaType(req.headers.get("content-type"));
  try {
    if (!(await ingestTokenAccepted(req.headers.get("authorization")))) {
      throw new AppError("UNAUTHORIZED", "missing or wrong ingest token (Authorization: Bearer <token>)");
    }
    if (type !== "application/json" && type !== "application/x-protobuf" && type !== "application/protobuf") {
      throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json or application/x-protobuf");
    }
    const bytes = decodedBody(await readBytesLimited(req, MAX_OTLP_BYTES), req.headers.get("content-encoding"));
    const request = parseLogsBody(bytes, type);
    const result = await receiveLogs(request, serverIngest().submit);
    const seen = {
      events: result.accepted,
      ...(result.rejected && { detail: { rejected: result.rejected, last_error: result.errorMessage.slice(0, 500) } }),
    };
    // A status write never fails the export it reports on (the reporter logs a failure).
    await sourceReporter(serverStore(), OTLP_SOURCE.id, OTLP_SOURCE.kind, OTLP_SOURCE.name).ok(Date.now(), seen);
    if (type === "application/json") {
      const body = result.rejected
        ? { partialSuccess: { rejectedLogRecords: String(result.rejected), errorMessage: result.errorMessage } }
        : {};
      return Response.json(body);
    }
    return new Response(Buffer.from(encodeProtobufResponse(result.rejected, result.errorMessage)), {
      headers: { "content-type": "application/x-protobuf" },
    });
  } catch (err) {
    return (
      pgUnavailableResponse(err) ??
      errorResponse(
        err,
        err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
      )
    );
  }
}
