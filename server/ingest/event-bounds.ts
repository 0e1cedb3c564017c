// The bounds and value sets of switchyard.telemetry.v1 (docs/telemetry-format.md), shared by the schema (events.ts) and its
// fast path for the common shapes (event-fast-path.ts), so the two can never disagree on a limit.

/** Unix ms between 2000-01-01 and 2100-01-01. */
export const MIN_TS = 946_684_800_000;
export const MAX_TS = 4_102_444_800_000;
export const MAX_ID = 128;

export { CLUSTER_NAME, CLUSTER_NAME_RULE } from "../../lib/cluster-name";
export { DEFAULT_CLUSTER } from "../../db/ingest/clusters";
/** Bound of one hash list on the wire for KV events. */
export const MAX_HASHES = 16_384;
/** Bound of the full chain a request stands for (a 1M-token context at block size 16 is 62,500 blocks); its lists too. */
export const MAX_CHAIN = 131_072;
export const MAX_CANDIDATES = 1_024;
export const MAX_TOKENS = 100_000_000;
export const MAX_BLOCKS = 1_000_000_000;
export const MAX_COUNT = 10_000_000;
export const MAX_RATIO = 1_000_000;
/** A latency in ms (fractions allowed), at most a day. */
export const MAX_LATENCY_MS = 86_400_000;
export const MAX_BLOCK_SIZE = 1_048_576;

export const WORKER_ROLES = ["prefill", "decode", "aggregated"] as const;
export const REMOVAL_REASONS = [
  "capacity",
  "ttl",
  "agent_end",
  "session_end",
  "cleared",
  "offloaded",
  "unknown",
] as const;
/** Where a KV block lives (docs/telemetry-format.md, the storage_tier field): GPU memory, CPU memory, local SSD, storage shared by workers. */
export const STORAGE_TIERS = ["device", "host", "disk", "shared"] as const;
export type StorageTier = (typeof STORAGE_TIERS)[number];
export const REQUEST_APIS = ["chat_completions", "responses", "messages"] as const;
export const REQUEST_STATUSES = ["ok", "error", "cancelled"] as const;
export const TOOL_STATUSES = ["running", "succeeded", "error", "cancelled"] as const;
export const BUDGET_UNITS = ["bytes", "tokens"] as const;

const U64_MAX_TEXT = "18446744073709551615";
const HASH_MESSAGE = "must be a decimal string of an unsigned 64-bit value";

/** Why a value is not a u64 decimal string, or null when it is one. Hand-written: it runs per block. */
export function hashProblem(v: unknown): string | null {
  if (typeof v !== "string") return "must be a decimal string (a JSON number would lose 64-bit precision)";
  const n = v.length;
  if (n === 0 || n > 20 || (n > 1 && v.charCodeAt(0) === 48)) return HASH_MESSAGE;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return HASH_MESSAGE;
  }
  if (n === 20 && v > U64_MAX_TEXT) return "exceeds 2^64-1";
  return null;
}

/** The index of the first element of v that is not a u64 decimal string, or -1. One pass of cheap checks, no allocation. */
export function badHashIndex(v: readonly unknown[]): number {
  for (let i = 0; i < v.length; i++) {
    const s = v[i];
    if (typeof s !== "string") return i;
    const n = s.length;
    if (n === 0 || n > 20 || (n > 1 && s.charCodeAt(0) === 48)) return i;
    for (let k = 0; k < n; k++) {
      const c = s.charCodeAt(k);
      if (c < 48 || c > 57) return i;
    }
    if (n === 20 && s > U64_MAX_TEXT) return i;
  }
  return -1;
}
