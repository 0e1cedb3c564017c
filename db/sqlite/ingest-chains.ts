import * as bounds from "../../lib/memory-bounds";
import type { IngestRowOf, PrefixCode, ResolvePrefix } from "../rows/ingest";
import { commonPrefix, encodeHashes, HASH_BYTES } from "../codecs/chains";
import { chainsOf, namedRequest, previousTurnOf, rememberChains, requestRowExists } from "./chains";
import { encodeRuns, MIN_RUN } from "../codecs/runs";
import type { Db } from "./client";
import { kvRefColumns } from "./kv-lists";
import { wordsOf } from "./kv-locations";
import { Locations } from "./kv-locations";
import type { ChainColumns } from "../ingest/request-rows";

// How a request's chains are stored on ingest: as the extension of an earlier turn, holding only the new hashes; a
// turn that extends none (a session's first) as runs of a recent first turn that holds its local hashes.

/** A request's sequence_hashes and local_hashes already encoded (encodeHashes; null: not given). */
export type EncodedChains = { seq: Buffer | null; local: Buffer | null };
/** `seqRefs`: requests.seq_refs (SQLite only: the sequence tail's runs that KV events hold, see kvRefColumns). */
export type ChainOutcome =
  { ok: true; columns: ChainColumns; seqRefs: Buffer | null } | { ok: false; code: PrefixCode; error: string };

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
  encoded?: EncodedChains,
): ChainOutcome {
  const r = storedChains(db, e, laterInBatch, resolvePrefix, encoded);
  if (!r.ok) return r;
  const [seq] = r.columns;
  if (!seq || seq.byteLength === 0) return { ok: true, columns: r.columns, seqRefs: null };
  const [literal, refs] = kvRefColumns(db, seq, e.ts);
  return { ok: true, columns: [literal, ...r.columns.slice(1)] as ChainColumns, seqRefs: refs };
}

/**
 * The chain columns before the sequence tail is matched against KV events: a turn's new blocks were mostly stored as
 * kv.stored lists before its request event (sent when it ends), so its tail refers to them (requests.seq_refs).
 */
function storedChains(
  db: Db,
  e: IngestRowOf<"request">,
  laterInBatch: (requestId: string) => boolean,
  resolvePrefix: ResolvePrefix,
  encoded?: EncodedChains,
): { ok: true; columns: ChainColumns } | { ok: false; code: PrefixCode; error: string } {
  const local = encoded ? encoded.local : e.local_hashes === undefined ? null : encodeHashes(e.local_hashes);
  if (e.prefix_of) {
    const r = resolvePrefix(
      e,
      namedRequest(db, e.prefix_of.request_id, e.session_id ?? null, e.source ?? null),
      laterInBatch(e.prefix_of.request_id),
    );
    if (!r.ok) return r;
    const seq = encoded ? (encoded.seq ?? encodeHashes([])) : encodeHashes(e.sequence_hashes ?? []);
    const seqCount = r.shared + seq.byteLength / HASH_BYTES;
    const localCount = local && r.localShared + local.byteLength / HASH_BYTES;
    return { ok: true, columns: [seq, local, r.base, r.shared, r.localShared, seqCount, localCount, null] };
  }
  const seq = encoded ? encoded.seq : e.sequence_hashes === undefined ? null : encodeHashes(e.sequence_hashes);
  const counts = [seq && seq.byteLength / HASH_BYTES, local && local.byteLength / HASH_BYTES] as const;
  if (!seq?.byteLength && !local?.byteLength) return { ok: true, columns: [seq, local, null, 0, 0, ...counts, null] };
  const prev = previousTurnOf(db, e);
  const base = prev === null ? null : chainsOf(db, prev);
  const seqShared = seq && base?.seq ? commonPrefix(base.seq, seq) : 0;
  const localShared = local && base?.local ? commonPrefix(base.local, local) : 0;
  rememberChains(db, e.id, { seq, local });
  if (seqShared === 0 && localShared === 0) {
    const runs = local && e.local_hashes ? asRuns(db, e, seq, local) : null;
    if (runs) return { ok: true, columns: [...runs.slice(0, 5), ...counts, runs[5]] as ChainColumns };
    if (local && e.local_hashes) noteOrigin(db, e, local);
    return { ok: true, columns: [seq, local, null, 0, 0, ...counts, null] };
  }
  return {
    ok: true,
    columns: [tail(seq, seqShared), tail(local, localShared), prev, seqShared, localShared, ...counts, null],
  };
}

const tail = (b: Buffer | null, n: number) => b && b.subarray(n * HASH_BYTES);

/**
 * Recent rows stored whole (a session's first turn), per connection: where each of their local hashes sits, as origin
 * index + 1 and position (newest origin wins), keyed by the hash's 32-bit words. Only whole rows are origins, so a
 * chain stored as runs is one step from whole. Nothing here is trusted: an origin is read back and compared word by
 * word before it is referred to.
 */
type Origins = {
  at: Locations;
  rows: { id: string; arrivedAt: number }[];
  /** Where a list's hashes were found (asRuns: one list at a time). */
  found: { rowid: Float64Array; pos: Int32Array; sec: Float64Array };
};
const origins = new WeakMap<object, Origins>();
/** Hashes remembered (the map is emptied when this full: a clear only costs first turns stored whole). */
const ORIGIN_HASHES = bounds.ORIGIN_HASHES;
const POS = 2 ** 21;
/** Slots of the origins' table: a power of two, ORIGIN_HASHES at most a third full (short probes). */
const ORIGIN_SLOTS = bounds.ORIGIN_SLOTS;
/**
 * A first turn refers to an origin that arrived at most this long before or after it. Bounds what retention must
 * store whole (rebaseDependents) when it deletes an origin: the first turns of this window that refer to it.
 */
export const ORIGIN_WINDOW_MS = 5 * 60_000;

function originsOf(db: Db): Origins {
  let o = origins.get(db.$client);
  if (!o) {
    const found = { rowid: new Float64Array(256), pos: new Int32Array(256), sec: new Float64Array(256) };
    origins.set(db.$client, (o = { at: new Locations(undefined, ORIGIN_SLOTS), rows: [], found }));
  }
  return o;
}

/** `local`: the turn's local chain encoded (8-byte words). */
function noteOrigin(db: Db, e: IngestRowOf<"request">, local: Buffer): void {
  const o = originsOf(db);
  const n = local.byteLength / HASH_BYTES;
  if (o.at.size + n > ORIGIN_HASHES || n >= POS) {
    o.at.clear();
    o.rows = [];
    if (n > ORIGIN_HASHES || n >= POS) return;
  }
  const k = o.rows.push({ id: e.id, arrivedAt: e.arrived_at }) - 1;
  const w = wordsOf(local);
  for (let i = 0; i < n; i++) o.at.set(w[2 * i]!, w[2 * i + 1]!, k + 1, i, 0);
}

/** Where each hash of `local` was noted (found.rowid[i]: origin index + 1, 0 when none; found.pos[i]: position). */
function findOrigins(o: Origins, local: Buffer): Origins["found"] {
  const n = local.byteLength / HASH_BYTES;
  if (o.found.rowid.length < n) {
    const size = Math.max(n, o.found.rowid.length * 2);
    o.found = { rowid: new Float64Array(size), pos: new Int32Array(size), sec: new Float64Array(size) };
  }
  const w = wordsOf(local);
  for (let i = 0; i < n; i++) o.at.get(w[2 * i]!, w[2 * i + 1]!, 0, o.found, i);
  return o.found;
}

/**
 * A turn that extends none stored against the recent origin holding most of its local hashes: its sequence chain as
 * that origin's extension (the shared prefix, often none), its local chain as runs of the origin's. Returns
 * [sequence_hashes, local_hashes, chain_base, seq_shared, local_shared, local_refs], or null when nothing pays.
 */
function asRuns(
  db: Db,
  e: IngestRowOf<"request">,
  seq: Buffer | null,
  local: Buffer,
): [Buffer | null, Buffer, string, number, number, Buffer] | null {
  const o = originsOf(db);
  const found = findOrigins(o, local);
  const n = local.byteLength / HASH_BYTES;
  const hits = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const r = found.rowid[i]!;
    if (r !== 0) hits.set(r - 1, (hits.get(r - 1) ?? 0) + 1);
  }
  let best = -1;
  for (const [k, n] of hits)
    if (
      n >= MIN_RUN &&
      (best < 0 || n > hits.get(best)!) &&
      Math.abs(o.rows[k]!.arrivedAt - e.arrived_at) <= ORIGIN_WINDOW_MS
    )
      best = k;
  if (best < 0) return null;
  const id = o.rows[best]!.id;
  if (id === e.id || !requestRowExists(db, id)) return null;
  const base = chainsOf(db, id);
  if (!base?.local) return null;
  const enc = encodeRuns(local, base.local, (i) => (found.rowid[i] === best + 1 ? found.pos[i]! : -1));
  if (!enc.refs) return null;
  const seqShared = seq && base.seq ? commonPrefix(base.seq, seq) : 0;
  return [tail(seq, seqShared), enc.literal, id, seqShared, 0, enc.refs];
}
