import { AppError } from "../../errors";

/** Largest trace upload, in bytes as sent (gzip stays compressed on the wire). */
export const MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

/**
 * Whether a trace upload may proceed: the ingest token, or (until dashboard sign-in lands) a request the browser marks
 * as coming from the dashboard's own pages. The one place to swap in the session check.
 */
export function importAllowed(req: Request, tokenMatches: (authorization: string | null) => boolean): boolean {
  const authorization = req.headers.get("authorization");
  if (authorization) return tokenMatches(authorization);
  if (req.headers.get("sec-fetch-site") === "same-origin") return true;
  const origin = req.headers.get("origin");
  const host = req.headers.get("host");
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** The uploaded file's name from its header (URI-encoded), bounded; "upload" when absent. */
export function importName(header: string | null): string {
  if (!header) return "upload";
  let name = header;
  try {
    name = decodeURIComponent(header);
  } catch {
    /* keep the raw header */
  }
  return name.replace(/[\u0000-\u001f]/g, "").slice(0, 200) || "upload";
}

/** The body's chunks, refusing (413) once more than max bytes arrived. */
export async function* limitedBody(body: ReadableStream<Uint8Array>, max: number): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      total += value.byteLength;
      if (total > max) throw new AppError("PAYLOAD_TOO_LARGE", `upload exceeds ${Math.round(max / 1024 / 1024)} MiB`);
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
