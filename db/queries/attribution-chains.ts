// The only place the attribution job decodes stored hash lists: swap these two for the compact-chain decoder.

/** A u64 decimal hash as the signed 64-bit integer key the attribution index stores. */
export const toKey = (h: string): bigint => BigInt.asIntN(64, BigInt(h));

/** Random access to a request's chains as i64 keys; `local` is null where the request carried no local hashes. */
export type Chains = { length: number; seqKey(i: number): bigint; localKey(i: number): bigint | null };

/** The block hashes of one kv_events row (stored/removed), as i64 keys in order. */
export function blockListOf(row: { hashes: string | null }): bigint[] {
  return row.hashes ? row.hashes.split(",").map(toKey) : [];
}

/** A request row's sequence and local hash chains (keys decoded on access: a turn reads only its recomputed blocks). */
export function chainsOf(row: { seq: string | null; local: string | null }): Chains {
  const seq = row.seq ? row.seq.split(",") : [];
  const local = row.local ? row.local.split(",") : [];
  const hasLocal = local.length === seq.length;
  return { length: seq.length, seqKey: (i) => toKey(seq[i]!), localKey: (i) => (hasLocal ? toKey(local[i]!) : null) };
}
