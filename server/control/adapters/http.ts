import { STATUS_CODES } from "node:http";
import { log, scrubSecrets } from "../../observability/logger";
import { outboundFetch, type OutboundFetch } from "../../outbound/fetch";
import type { PolicyError } from "../../../lib/policies/policies";

export const PUSH_TIMEOUT_MS = 10_000;
const MAX_REPLY_BYTES = 64 * 1024;
const MAX_SHOWN = 200;

/** A target's answer: `json` is its body only when the reply says it is JSON (content type), else null. */
export type JsonReply = { status: number; json: unknown };

/**
 * Send a JSON body through the outbound policy. A network failure, timeout, redirect or refusal throws a fixed reason
 * (the reconciler retries); any other HTTP answer resolves. A body that is not JSON goes to the debug log only.
 */
export async function sendJson(
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
  timeoutMs = PUSH_TIMEOUT_MS,
  fetchImpl: OutboundFetch = outboundFetch,
): Promise<JsonReply> {
  const reply = await fetchImpl(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    timeoutMs,
    maxBytes: MAX_REPLY_BYTES,
  });
  const json = /^application\/([\w.+-]*\+)?json\b/i.test(reply.contentType.trim()) ? parseJson(reply.text) : null;
  if (json === null && reply.text !== "")
    log().debug({ url, status: reply.status, body: scrubSecrets(reply.text.slice(0, MAX_SHOWN)) }, "target reply");
  return { status: reply.status, json };
}

function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}

/** Field errors from a JSON reply's `errors: [{path, message}]`, each capped, ignoring malformed items. */
export function replyErrors(json: unknown): PolicyError[] {
  const errors = (json as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors
    .filter(
      (e): e is PolicyError =>
        typeof e === "object" &&
        e !== null &&
        typeof (e as PolicyError).path === "string" &&
        typeof (e as PolicyError).message === "string",
    )
    .slice(0, 50)
    .map((e) => ({ path: e.path.slice(0, MAX_SHOWN), message: e.message.slice(0, MAX_SHOWN) }));
}

/**
 * A reply for the rollout: "HTTP 404: <its JSON error>" (capped at 200 characters) when the target answered the
 * protocol's {error}, else the status and its standard reason ("HTTP 500 Internal Server Error"), never other text.
 */
export function replyMessage(reply: JsonReply): string {
  const error = (reply.json as { error?: unknown } | null)?.error;
  if (typeof error === "string" && error.trim() !== "") return `HTTP ${reply.status}: ${error.slice(0, MAX_SHOWN)}`;
  return `HTTP ${reply.status} ${STATUS_CODES[reply.status] ?? "(unknown status)"}`;
}

/** Join a base URL and an absolute path without doubling slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}
