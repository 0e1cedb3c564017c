import { sameOriginRequest } from "../../auth/request";
import { satisfies, type Actor } from "../../auth/roles";
import { AppError } from "../../errors";

/** Largest trace upload, in bytes as sent (gzip stays compressed on the wire). */
export const MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

/** Whether an upload may proceed, and if not, why (401: nobody; 403: a caller without the operator role). */
export type ImportAccess = "ok" | "unauthorized" | "forbidden";

/**
 * Who may upload traces: a sender with the ingest token, or a signed-in operator (session cookie or API token) whose
 * request comes from the dashboard's own origin. The one place uploads are authorized.
 */
export function importAccess(
  req: Request,
  ingestTokenMatches: (authorization: string | null) => boolean,
  actor: () => Actor | null,
): ImportAccess {
  const authorization = req.headers.get("authorization");
  if (authorization && ingestTokenMatches(authorization)) return "ok";
  const who = actor();
  if (!who) return "unauthorized";
  if (!satisfies(who.role, "operator") || !sameOriginRequest(req)) return "forbidden";
  return "ok";
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
