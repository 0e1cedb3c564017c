import { AppError, toHttpError } from "./errors";
import { errorMessage, log } from "./observability/logger";
import { utf8Text } from "../lib/utf8";

/**
 * How much of an oversized body is read and thrown away before the refusal is sent. A sender that writes its whole
 * body before reading (Python's urllib, many simple clients) sees a broken pipe, not the 413 and its message, when
 * the server stops reading early; past this bound the connection is closed instead.
 */
export const DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * Read a request body as bytes, refusing (413) once it exceeds max bytes. The rest of an oversized body is read and
 * discarded up to drainUpTo bytes in all (nothing more is buffered) so the sender gets the answer; a body declared
 * or found larger than that is cancelled, which closes the connection.
 */
export async function readBytesLimited(
  req: Request,
  max: number,
  drainUpTo = Math.max(max, DRAIN_BYTES),
): Promise<Buffer> {
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > drainUpTo) {
    await req.body?.cancel();
    throw tooLarge(max);
  }
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > drainUpTo) {
      await reader.cancel();
      throw tooLarge(max);
    }
    if (total > max) chunks.length = 0;
    else chunks.push(value);
  }
  if (total > max) throw tooLarge(max);
  return Buffer.concat(chunks);
}

/** Read a request body as UTF-8 under the same limit. */
export async function readBodyLimited(req: Request, max: number, drainUpTo?: number): Promise<string> {
  return utf8Text(await readBytesLimited(req, max, drainUpTo));
}

function tooLarge(max: number) {
  return new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${Math.round(max / 1024 / 1024)} MiB`);
}

/** A JSON error reply for any thrown value (5xx masked). */
export function errorResponse(err: unknown, headers?: Record<string, string>): Response {
  const { status, message, retryAfter } = toHttpError(err);
  if (status >= 500) log().error({ err: errorMessage(err) }, "request failed");
  const all: Record<string, string> = { ...headers };
  if (retryAfter !== undefined) all["Retry-After"] = String(retryAfter);
  return Response.json({ error: message }, { status, headers: all });
}
