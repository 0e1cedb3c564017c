import type { IngestRowOf } from "../rows/ingest";
import { encodeHash } from "../chain-codec";
import type { Db } from "../client";
import { kvListColumns } from "./kv-lists";

// How KV events are stored (kv_events, db/schema/kv.ts): one row per event, its block list literal or compact.

type Row = (string | number | Buffer | null)[];
const opt = <T>(v: T | undefined) => (v === undefined ? null : v);

const COLUMNS = [
  "id",
  "ts",
  "op",
  "worker_id",
  "block_count",
  "block_hashes",
  "parent_hash",
  "local_hashes",
  "retention_class",
  "session_id",
  "reason",
  "source",
  "storage_tier",
  "onboarded_from",
  "block_refs",
];

export const KV_INSERT = `INSERT INTO kv_events (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")}) ON CONFLICT(id) DO NOTHING`;

/** A kv.stored row given its block list columns (the hashes kept literally, and the reference program or null). */
export const kvStoredRow = (e: IngestRowOf<"kv.stored">, hashes: Buffer, refs: Buffer | null): Row => [
  e.id,
  e.ts,
  "stored",
  e.worker_id,
  e.block_hashes.length,
  hashes,
  encodeHash(e.parent_hash),
  null,
  opt(e.retention_class),
  opt(e.session_id),
  null,
  opt(e.source),
  opt(e.storage_tier),
  opt(e.onboarded_from),
  refs,
];

/** A kv.removed row given its block list columns (the hashes kept literally, and the reference program or null). */
export const kvRemovedRow = (e: IngestRowOf<"kv.removed">, hashes: Buffer, refs: Buffer | null): Row => [
  e.id,
  e.ts,
  "removed",
  e.worker_id,
  e.block_hashes.length,
  hashes,
  null,
  null,
  null,
  null,
  e.reason,
  opt(e.source),
  opt(e.storage_tier),
  null,
  refs,
];

export const kvClearedRow = (e: IngestRowOf<"kv.cleared">): Row => [
  e.id,
  e.ts,
  "cleared",
  e.worker_id,
  0,
  null,
  null,
  null,
  null,
  null,
  "cleared",
  opt(e.source),
  null,
  null,
  null,
];

/**
 * The row of a kv.stored / kv.removed event on the ingest path: runs of its list that earlier events on this
 * connection hold literally are stored as references (db/queries/kv-lists.ts). Call kvRowStored after inserting it.
 */
export function compactKvRow(db: Db, e: IngestRowOf<"kv.stored"> | IngestRowOf<"kv.removed">): Row {
  const [hashes, refs] = kvListColumns(db, e.block_hashes, e.ts);
  return e.kind === "kv.stored" ? kvStoredRow(e, hashes, refs) : kvRemovedRow(e, hashes, refs);
}
