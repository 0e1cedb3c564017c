import type { IngestRowOf } from "../rows/ingest";
import type { Db } from "./client";
import { kvListColumns } from "./kv-lists";
import { HASHES_AT, kvRemovedRow, kvStoredRow, REFS_AT } from "../ingest/kv-rows";
type Row = (string | number | Buffer | null)[];

/**
 * The row of a kv.stored / kv.removed event on the ingest path: runs of its list that earlier events on this
 * connection hold literally are stored as references (db/sqlite/kv-lists.ts). Call kvRowStored after inserting it.
 * `encoded`: e.block_hashes already encoded (encodeHashes), when the caller did that before taking the write lock;
 * `template`: kvRowTemplate(e), likewise (its block list columns are set here).
 */
export function compactKvRow(
  db: Db,
  e: IngestRowOf<"kv.stored"> | IngestRowOf<"kv.removed">,
  encoded?: Buffer | null,
  template?: Row | null,
): Row {
  const [hashes, refs] = kvListColumns(db, encoded ?? e.block_hashes, e.ts);
  if (!template) return e.kind === "kv.stored" ? kvStoredRow(e, hashes, refs) : kvRemovedRow(e, hashes, refs);
  template[HASHES_AT] = hashes;
  template[REFS_AT] = refs;
  return template;
}
