import { HASH_BYTES } from "../codecs/chains";
import type { Db } from "./client";
import { chainsOf as storedChainsOf } from "./chains";
import { kvBlockList } from "./kv-lists";

// The only place the attribution job decodes stored hash lists: binary u64 (or legacy decimal text), read as i64 keys.

/** A u64 decimal hash as the signed 64-bit integer key the attribution index stores. */
export const toKey = (h: string): bigint => BigInt.asIntN(64, BigInt(h));

/** Random access to a request's chains, each i64 key as its int32 halves; hasLocal is false without local hashes. */
export type Chains = {
  length: number;
  hasLocal: boolean;
  seqHi(i: number): number;
  seqLo(i: number): number;
  localHi(i: number): number;
  localLo(i: number): number;
};

/** The block hashes of one kv_events row (stored/removed) as 8-byte big-endian hashes in order (references resolved). */
export function blockBytesOf(
  db: Db,
  row: { hashes: Uint8Array | string | null; refs: Uint8Array | null },
): Buffer | null {
  return kvBlockList(db, row.hashes, row.refs);
}

/** A request's full sequence and local chains (rebuilt from its compact row; keys decoded on access: a turn reads only its recomputed blocks). */
export function chainsOf(db: Db, row: { id: string }): Chains {
  const c = storedChainsOf(db, row.id);
  const seq = c?.seq ?? null;
  const local = c?.local ?? null;
  const length = seq ? seq.byteLength / HASH_BYTES : 0;
  const hasLocal = local !== null && seq !== null && local.byteLength === seq.byteLength;
  return {
    length,
    hasLocal: hasLocal && length > 0,
    seqHi: (i) => seq!.readInt32BE(i * HASH_BYTES),
    seqLo: (i) => seq!.readInt32BE(i * HASH_BYTES + 4),
    localHi: (i) => local!.readInt32BE(i * HASH_BYTES),
    localLo: (i) => local!.readInt32BE(i * HASH_BYTES + 4),
  };
}
