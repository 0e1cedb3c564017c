import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isPolicyKind, POLICY_KINDS } from "../../lib/policies/policies";
import type { PolicyTarget } from "./controller";
import { NO_TIERS, offloadTierErrors, type TierConfig } from "./tiers";

// The simulated cluster's control API (a push target of the dashboard's reconciler):
//   GET /control/policies            -> { <kind>: { version, document, applied_at } }
//   PUT /control/policies/<kind>     <- { version, document } -> 200 ack | 422 rejected
//   GET /control/status              -> runner counters (simulated time, delivery)
// Every route needs `Authorization: Bearer <control token>`.

export const MAX_BODY_BYTES = 1024 * 1024;

export type ControlApiOptions = {
  target: PolicyTarget;
  token: string;
  status?: () => Record<string, unknown>;
  maxBodyBytes?: number;
  /** The cluster's lower KV tiers: a retention document offloading to one it lacks is refused (default: none). */
  tiers?: TierConfig;
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** An http.Server serving the control API (not yet listening). */
export function createControlServer(options: ControlApiOptions): Server {
  const digest = sha256(options.token);
  const max = options.maxBodyBytes ?? MAX_BODY_BYTES;
  return createServer((req, res) => {
    handle(req, res, options, digest, max).catch((err: unknown) => {
      if (err instanceof HttpError) send(res, err.status, { error: err.message }, err.headers);
      else send(res, 500, { error: "internal error" });
    });
  });
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  options: ControlApiOptions,
  digest: Buffer,
  max: number,
): Promise<void> {
  if (!authorized(req.headers.authorization, digest)) {
    req.resume();
    throw new HttpError(401, "missing or wrong control token (Authorization: Bearer <token>)", {
      "WWW-Authenticate": "Bearer",
    });
  }
  const path = (req.url ?? "/").split("?")[0]!.replace(/\/+$/, "");
  if (path === "/control/policies") {
    allow(req, "GET");
    send(res, 200, options.target.policies());
    return;
  }
  if (path === "/control/status" && options.status) {
    allow(req, "GET");
    send(res, 200, options.status());
    return;
  }
  const match = /^\/control\/policies\/([^/]+)$/.exec(path);
  if (!match) throw new HttpError(404, "not found");
  const kind = decodeURIComponent(match[1]!);
  if (!isPolicyKind(kind))
    throw new HttpError(
      404,
      `unknown policy kind ${JSON.stringify(kind.slice(0, 40))} (one of ${POLICY_KINDS.join(", ")})`,
    );
  allow(req, "PUT");
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new HttpError(415, "Content-Type must be application/json");
  const body = await readBody(req, max);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new HttpError(400, "body is not valid JSON");
  }
  const envelope = checkEnvelope(parsed);
  if (!envelope.ok && envelope.version === null) {
    send(res, 422, { kind, status: "rejected", errors: envelope.errors });
    return;
  }
  // A usable version is acknowledged (policy.ack) even when the rest of the envelope is refused.
  const refused = envelope.ok ? offloadTierErrors(kind, envelope.document, options.tiers ?? NO_TIERS) : envelope.errors;
  const ack = await options.target.apply(kind, envelope.version!, envelope.ok ? envelope.document : undefined, refused);
  if (ack.ok) send(res, 200, { kind, version: ack.version, status: "applied", applied_at: ack.applied_at });
  else send(res, 422, { kind, version: ack.version, status: "rejected", errors: ack.errors });
}

type Envelope =
  | { ok: true; version: number; document: unknown }
  | { ok: false; version: number | null; errors: { path: string; message: string }[] };

function checkEnvelope(value: unknown): Envelope {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return {
      ok: false,
      version: null,
      errors: [{ path: "", message: "body must be an object { version, document }" }],
    };
  const body = value as Record<string, unknown>;
  const errors: { path: string; message: string }[] = [];
  const version =
    typeof body.version === "number" && Number.isInteger(body.version) && body.version >= 0 && body.version <= 1e9
      ? body.version
      : null;
  if (version === null) errors.push({ path: "version", message: "must be an integer between 0 and 1000000000" });
  if (!("document" in body)) errors.push({ path: "document", message: "is required" });
  for (const key of Object.keys(body))
    if (key !== "version" && key !== "document") errors.push({ path: key, message: "unknown field" });
  return errors.length || version === null
    ? { ok: false, version, errors }
    : { ok: true, version, document: body.document };
}

function allow(req: IncomingMessage, method: string): void {
  if (req.method !== method) {
    req.resume();
    throw new HttpError(405, `use ${method}`, { Allow: method });
  }
}

function authorized(header: string | undefined, digest: Buffer): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? "");
  return m !== null && timingSafeEqual(sha256(m[1]!.trim()), digest);
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > max) {
      req.resume();
      reject(new HttpError(413, `body exceeds ${max} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    req.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > max) {
        req.removeAllListeners("data");
        req.resume();
        reject(new HttpError(413, `body exceeds ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(text);
}
