import type { PolicyError } from "../policies";

export const PUSH_TIMEOUT_MS = 10_000;

/** Send a JSON body; a network failure or timeout throws (the reconciler retries), any HTTP answer resolves. */
export async function sendJson(
  url: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = {},
  timeoutMs = PUSH_TIMEOUT_MS,
) {
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? (JSON.parse(text) as unknown) : null;
  } catch {
    json = null;
  }
  return { status: res.status, json, text };
}

/** Field errors from a reply body's `errors: [{path, message}]`, ignoring malformed items. */
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
    .slice(0, 50);
}

/** The reply's `error`/`message` string, else its text, trimmed to 500 characters. */
export function replyMessage(json: unknown, text: string): string {
  const body = json as { error?: unknown; message?: unknown } | null;
  const m = typeof body?.error === "string" ? body.error : typeof body?.message === "string" ? body.message : text;
  return m.slice(0, 500);
}

/** Join a base URL and an absolute path without doubling slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}
