import type { IngestRowOf, PrefixCode, ResolvePrefix } from "../rows/ingest";
import { commonPrefix, encodeHashes, HASH_BYTES } from "../chain-codec";
import { chainsOf, namedRequest, previousTurnOf, rememberChains } from "./chains";
import type { Db } from "../client";

// How a request's chains are stored on ingest: as the extension of an earlier turn, holding only the new hashes.

/** Values of sequence_hashes, local_hashes, chain_base, seq_shared, local_shared, seq_count, local_count (column order). */
export type ChainColumns = [Buffer | null, Buffer | null, string | null, number, number, number | null, number | null];
export type ChainOutcome = { ok: true; columns: ChainColumns } | { ok: false; code: PrefixCode; error: string };

export const CHAIN_COLUMNS = [
  "sequence_hashes",
  "local_hashes",
  "chain_base",
  "seq_shared",
  "local_shared",
  "seq_count",
  "local_count",
];

/**
 * The stored form of a request's chains. Compact (prefix_of): the named request is the base, the carried lists are the
 * tails, nothing is decoded. Full lists: matched against the trajectory's previous turn (longest common prefix), so a
 * third-party sender's turns are stored as compactly as the simulator's. `laterInBatch` says whether a request_id comes
 * later in the same batch (a prefix naming it is a cycle, not an unknown request). Whether a prefix_of may extend the
 * request it names is `resolvePrefix`'s decision (server/ingest/prefix.ts): this only reads and writes the chain rows.
 */
export function chainColumns(
  db: Db,
  e: IngestRowOf<"request">,
  laterInBatch: (requestId: string) => boolean,
  resolvePrefix: ResolvePrefix,
): ChainOutcome {
  const local = e.local_hashes === undefined ? null : encodeHashes(e.local_hashes);
  if (e.prefix_of) {
    const r = resolvePrefix(
      e,
      namedRequest(db, e.prefix_of.request_id, e.session_id ?? null, e.source ?? null),
      laterInBatch(e.prefix_of.request_id),
    );
    if (!r.ok) return r;
    const seq = encodeHashes(e.sequence_hashes ?? []);
    const seqCount = r.shared + seq.byteLength / HASH_BYTES;
    const localCount = local && r.localShared + local.byteLength / HASH_BYTES;
    return { ok: true, columns: [seq, local, r.base, r.shared, r.localShared, seqCount, localCount] };
  }
  const seq = e.sequence_hashes === undefined ? null : encodeHashes(e.sequence_hashes);
  const counts = [seq && seq.byteLength / HASH_BYTES, local && local.byteLength / HASH_BYTES] as const;
  if (!seq?.byteLength && !local?.byteLength) return { ok: true, columns: [seq, local, null, 0, 0, ...counts] };
  const prev = previousTurnOf(db, e);
  const base = prev === null ? null : chainsOf(db, prev);
  const seqShared = seq && base?.seq ? commonPrefix(base.seq, seq) : 0;
  const localShared = local && base?.local ? commonPrefix(base.local, local) : 0;
  rememberChains(db, e.id, { seq, local });
  if (seqShared === 0 && localShared === 0) return { ok: true, columns: [seq, local, null, 0, 0, ...counts] };
  const tail = (b: Buffer | null, n: number) => b && b.subarray(n * HASH_BYTES);
  return {
    ok: true,
    columns: [tail(seq, seqShared), tail(local, localShared), prev, seqShared, localShared, ...counts],
  };
}
