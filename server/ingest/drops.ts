// The dropped-events report a sender attaches to its ingest requests after an outage. Pure.

/** A header's cumulative dropped-events count, or null when absent or not a non-negative integer. */
export function parseDroppedHeader(value: string | null): number | null {
  if (value === null || !/^\d{1,15}$/.test(value.trim())) return null;
  const n = Number(value.trim());
  return n > 0 ? n : null;
}

/** A sender's name from its header: printable ASCII, at most 64 characters; "unknown" otherwise. */
export function parseSourceHeader(value: string | null): string {
  const v = (value ?? "").trim();
  return /^[\x21-\x7e]{1,64}$/.test(v) ? v : "unknown";
}
