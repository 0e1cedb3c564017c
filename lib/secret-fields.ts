// Secret fields of stored configs (a policy target's token, a scrape's bearer token) as views and edits see them:
// shown as a marker, and the marker sent back keeps the stored value only while it goes to the same origin.

/** Shown instead of a stored secret; sent back unchanged it means "keep the stored one". */
export const SECRET_MARKER = "••••";

/** The secret fields of policy targets' and sources' configs (each is sent to the config's `url`). */
export const TARGET_SECRET_FIELDS = ["token"] as const;
export const SOURCE_SECRET_FIELDS = ["bearer_token"] as const;

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/** A config for display: each secret field present replaced by SECRET_MARKER. */
export function redactSecrets(config: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out = { ...config };
  for (const f of fields) if (f in out && out[f] !== undefined && out[f] !== null) out[f] = SECRET_MARKER;
  return out;
}

/**
 * What changed between two URLs' scheme, host and effective port (80/443 when unset), or null when none did; a value
 * that is not a URL counts as a changed host.
 */
export function originChange(before: unknown, after: unknown): string | null {
  const [a, b] = [asUrl(before), asUrl(after)];
  if (!a || !b) return "the URL's host changed";
  if (a.protocol !== b.protocol) return "the URL's scheme changed";
  if (a.hostname !== b.hostname) return "the URL's host changed";
  if (effectivePort(a) !== effectivePort(b)) return "the URL's port changed";
  return null;
}

function asUrl(value: unknown): URL | null {
  return typeof value === "string" && URL.canParse(value) ? new URL(value) : null;
}

function effectivePort(u: URL): string {
  return u.port || DEFAULT_PORTS[u.protocol] || "";
}

export type SecretKeep =
  { ok: true; config: Record<string, unknown>; kept: string[] } | { ok: false; field: string; message: string };

/**
 * The config an edit asks to store: a secret field sent as SECRET_MARKER takes the stored value (as stored) when the
 * stored config's `url` and the new one share scheme, host and port; otherwise the edit must send the secret again.
 */
export function keepStoredSecrets(
  config: Record<string, unknown>,
  stored: Record<string, unknown> | null,
  fields: readonly string[],
): SecretKeep {
  const out = { ...config };
  const kept: string[] = [];
  for (const field of fields) {
    if (config[field] !== SECRET_MARKER) continue;
    const previous = stored?.[field];
    if (typeof previous !== "string") return { ok: false, field, message: "enter the token: none is stored" };
    const change = originChange(stored?.url, config.url);
    if (change) return { ok: false, field, message: `enter the token again: ${change}` };
    out[field] = previous;
    kept.push(field);
  }
  return { ok: true, config: out, kept };
}
