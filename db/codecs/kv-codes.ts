// kv_events' op and reason as small integer codes (0 and 1 take no bytes in a SQLite record), decoded back to their
// text by generated columns of the same names (db/sqlite/schema/kv.ts), so every reader sees the strings the events carried.

/** op_code → op. Codes are stored: append only, never reorder. */
export const KV_OPS = ["removed", "stored", "cleared"] as const;
/** reason_code → reason: the removal reasons of docs/telemetry-format.md (kv.cleared rows: "cleared"). Append only, never reorder. */
export const KV_REASONS = ["capacity", "ttl", "agent_end", "session_end", "cleared", "offloaded", "unknown"] as const;

export type KvOp = (typeof KV_OPS)[number];
export type KvReason = (typeof KV_REASONS)[number];

const opCodes = new Map<string, number>(KV_OPS.map((o, i) => [o, i]));
const reasonCodes = new Map<string, number>(KV_REASONS.map((r, i) => [r, i]));

/** The stored code of a KV event's op; throws for anything else (ingest validates it first). */
export function kvOpCode(op: KvOp): number {
  const c = opCodes.get(op);
  if (c === undefined) throw new Error(`not a KV op: ${String(op)}`);
  return c;
}

/** The stored code of a removal reason (its type holds every reason an event may carry to KV_REASONS). */
export function kvReasonCode(reason: KvReason): number {
  const c = reasonCodes.get(reason);
  if (c === undefined) throw new Error(`not a KV removal reason: ${reason}`);
  return c;
}

/** SQL that decodes a code column into its text (null for null or an unknown code), for a generated column. */
export function decodeSql(column: string, names: readonly string[]): string {
  return `CASE ${column} ${names.map((n, i) => `WHEN ${i} THEN '${n}'`).join(" ")} END`;
}
