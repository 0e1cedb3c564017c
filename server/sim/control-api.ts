import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isPolicyKind, POLICY_KINDS } from "../../lib/policies/policies";
import { MODEL_NAME } from "../../lib/policy-scope";
import type { PolicyTarget } from "./controller";
import { NO_TIERS, offloadTierErrors, type TierConfig } from "./tiers";

// The simulated cluster's control API (a push target of the dashboard's reconciler):
//   GET /control/policies            -> { <kind>: { version, document, applied_at } }
//   GET /control/policies?model=M    -> what model M's workers run (its own line where it has one)
//   PUT /control/policies/<kind>     <- { version, document, model? } -> 200 ack | 422 rejected
//     (with `model`: a version of that model's own policy line; 422 naming the served models if none is M)
//   GET /control/status              -> runner counters (simulated time, delivery)
// A fleet (--scenario fleet) serves each cluster's under /clusters/<name>/control/…; its root serves none.
// Every route needs `Authorization: Bearer <control token>`.

export const MAX_BODY_BYTES = 1024 * 1024;

/** One cluster's control: where its policies go. */
export type ClusterControl = {
  target: PolicyTarget;
  status?: () => Record<string, unknown>;
  /** The cluster's lower KV tiers: a retention document offloading to one it lacks is refused (default: none). */
  tiers?: TierConfig;
};

export type ControlApiOptions = Partial<ClusterControl> & {
  token: string;
  maxBodyBytes?: number;
  /** A fleet's clusters by name, served under /clusters/<name>; `target` (the root's) is then usually absent. */
  clusters?: Record<string, ClusterControl>;
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
  const [pathPart, query = ""] = (req.url ?? "/").split("?", 2) as [string, string?];
  const full = pathPart.replace(/\/+$/, "");
  const { control, path } = route(full, options);
  if (path === "/control/policies") {
    allow(req, "GET");
    const model = new URLSearchParams(query).get("model");
    if (model !== null && !control.target.models().includes(model))
      throw new HttpError(
        404,
        `no model ${JSON.stringify(model.slice(0, 80))} here (${control.target.models().join(", ")})`,
      );
    send(res, 200, control.target.policies(model));
    return;
  }
  if (path === "/control/status" && control.status) {
    allow(req, "GET");
    send(res, 200, control.status());
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
  const refused = envelope.ok ? offloadTierErrors(kind, envelope.document, control.tiers ?? NO_TIERS) : envelope.errors;
  const ack = await control.target.apply(
    kind,
    envelope.version!,
    envelope.ok ? envelope.document : undefined,
    refused,
    envelope.model,
  );
  if (ack.ok) send(res, 200, { kind, version: ack.version, status: "applied", applied_at: ack.applied_at });
  else send(res, 422, { kind, version: ack.version, status: "rejected", errors: ack.errors });
}

/** The cluster a path addresses and the rest of the path: /clusters/<name>/… for a fleet's, else the root's. */
function route(full: string, options: ControlApiOptions): { control: ClusterControl; path: string } {
  const clusters = options.clusters ?? {};
  const names = Object.keys(clusters);
  const m = /^\/clusters\/([^/]+)(\/.*)?$/.exec(full);
  if (m) {
    const name = safeDecode(m[1]!);
    if (!Object.hasOwn(clusters, name))
      throw new HttpError(
        404,
        `unknown cluster ${JSON.stringify(name.slice(0, 64))} (${names.length ? `one of ${names.join(", ")}` : "this simulator runs one cluster, at /control"})`,
      );
    return { control: clusters[name]!, path: m[2] ?? "" };
  }
  if (!options.target)
    throw new HttpError(
      404,
      `this simulator runs a fleet: each cluster's API is under /clusters/<name> (${names.join(", ")})`,
    );
  return { control: { target: options.target, status: options.status, tiers: options.tiers }, path: full };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

type Envelope =
  | { ok: true; version: number; document: unknown; model: string | null }
  | { ok: false; version: number | null; model: string | null; errors: { path: string; message: string }[] };

function checkEnvelope(value: unknown): Envelope {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return {
      ok: false,
      version: null,
      model: null,
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
  const model = typeof body.model === "string" && MODEL_NAME.test(body.model) ? body.model : null;
  if ("model" in body && model === null)
    errors.push({ path: "model", message: "must be a model name (1 to 256 visible characters)" });
  for (const key of Object.keys(body))
    if (key !== "version" && key !== "document" && key !== "model")
      errors.push({ path: key, message: "unknown field" });
  return errors.length || version === null
    ? { ok: false, version, model, errors }
    : { ok: true, version, document: body.document, model };
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
