import { AppError, toHttpError } from "./errors";

/** Read a request body as bytes, refusing (413) once it exceeds max bytes without buffering the rest. */
export async function readBytesLimited(req: Request, max: number): Promise<Buffer> {
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > max) throw tooLarge(max);
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Read a request body as UTF-8 under the same limit. */
export async function readBodyLimited(req: Request, max: number): Promise<string> {
  return (await readBytesLimited(req, max)).toString("utf8");
}

function tooLarge(max: number) {
  return new AppError("PAYLOAD_TOO_LARGE", `request body exceeds ${Math.round(max / 1024 / 1024)} MiB`);
}

/** A JSON error reply for any thrown value (5xx masked). */
export function errorResponse(err: unknown, headers?: Record<string, string>): Response {
  const { status, message } = toHttpError(err);
  if (status >= 500) console.error("request failed:", err instanceof Error ? err.message : String(err));
  return Response.json({ error: message }, { status, headers });
}
