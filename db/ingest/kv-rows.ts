import type { IngestRowOf } from "../rows/ingest";
import { encodeHash } from "../codecs/chains";
import { kvOpCode, kvReasonCode } from "../codecs/kv-codes";
import { clusterId } from "./clusters";
import { opt, type Row } from "./row-values";

// How KV events are stored (kv_events, db/sqlite/schema/kv.ts): one row per event, its block list literal or compact, its id
// as a hash (idKey).

/**
 * A 48-bit hash of an event id (a safe integer; SQLite stores it in 6 bytes): kv_events keeps it instead of the id's
 * text, unique with ts. Two different events collide only with the same ts and hash, about 2^-48 per pair in one ms.
 * Two independent 32-bit FNV-1a-style lanes over the UTF-16 code units, each finished with a murmur3 mix.
 */
export function idKey(id: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  const mix = (h: number) => {
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  return (mix(b ^ id.length) & 0xffff) * 4_294_967_296 + mix(a);
}

const COLUMNS = [
  "id_key",
  "ts",
  "cluster_id",
  "op_code",
  "worker_id",
  "block_count",
  "block_hashes",
  "parent_hash",
  "local_hashes",
  "retention_class",
  "reason_code",
  "source",
  "storage_tier",
  "onboarded_from",
  "block_refs",
];

const STORED = kvOpCode("stored");
const REMOVED = kvOpCode("removed");
const CLEARED = kvOpCode("cleared");

export const KV_INSERT = `INSERT INTO kv_events (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")}) ON CONFLICT(ts, id_key) DO NOTHING`;

/** A kv.stored row given its block list columns (the hashes kept literally, and the reference program or null). */
export const kvStoredRow = (e: IngestRowOf<"kv.stored">, hashes: Buffer, refs: Buffer | null): Row => [
  idKey(e.id),
  e.ts,
  clusterId(e.cluster),
  STORED,
  e.worker_id,
  e.block_hashes.length,
  hashes,
  encodeHash(e.parent_hash),
  null,
  opt(e.retention_class),
  null,
  opt(e.source),
  opt(e.storage_tier),
  opt(e.onboarded_from),
  refs,
];

/** A kv.removed row given its block list columns (the hashes kept literally, and the reference program or null). */
export const kvRemovedRow = (e: IngestRowOf<"kv.removed">, hashes: Buffer, refs: Buffer | null): Row => [
  idKey(e.id),
  e.ts,
  clusterId(e.cluster),
  REMOVED,
  e.worker_id,
  e.block_hashes.length,
  hashes,
  null,
  null,
  null,
  kvReasonCode(e.reason),
  opt(e.source),
  opt(e.storage_tier),
  null,
  refs,
];

export const kvClearedRow = (e: IngestRowOf<"kv.cleared">): Row => [
  idKey(e.id),
  e.ts,
  clusterId(e.cluster),
  CLEARED,
  e.worker_id,
  0,
  null,
  null,
  null,
  null,
  kvReasonCode("cleared"),
  opt(e.source),
  null,
  null,
  null,
];

/** Where a KV row holds its block list columns (COLUMNS' block_hashes and block_refs). */
export const HASHES_AT = COLUMNS.indexOf("block_hashes");
export const REFS_AT = COLUMNS.indexOf("block_refs");

/**
 * A kv.stored / kv.removed row with everything but its block list columns (filled by compactKvRow in the write turn):
 * built before the turn, as it needs nothing from the store.
 */
export function kvRowTemplate(e: IngestRowOf<"kv.stored"> | IngestRowOf<"kv.removed">): Row {
  return e.kind === "kv.stored" ? kvStoredRow(e, EMPTY, null) : kvRemovedRow(e, EMPTY, null);
}
const EMPTY = Buffer.alloc(0);
