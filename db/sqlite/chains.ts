import * as bounds from "../../lib/memory-bounds";
import type Database from "better-sqlite3";
import { asBinary, assembleChain, decodeHashes, HASH_BYTES, hashCount, type ChainLink } from "../codecs/chains";
import { decodeRuns } from "../codecs/runs";
import type { NamedRequest } from "../rows/ingest";
import type { Db } from "./client";
import { ChainMemo } from "./chain-memo";
import { kvBlockList } from "./kv-lists";

// The row side of request chains (schema: db/sqlite/schema/requests.ts). Every reader of requests.sequence_hashes /
// local_hashes goes through here: a row holds only what its turn added after the first shared hashes of its base.

/** A request's full chains as 8-byte big-endian blobs; null: the request carried no such list. */
export type Chains = { seq: Buffer | null; local: Buffer | null };
/** A request's full chains as decimal u64 strings (the wire form); null: none carried. */
export type ChainStrings = { sequence_hashes: string[] | null; local_hashes: string[] | null };

type ChainRow = {
  id: string;
  requestId: string;
  base: string | null;
  seqShared: number;
  localShared: number;
  seqCount: number | null;
  localCount: number | null;
  seq: Uint8Array | string | null;
  local: Uint8Array | string | null;
  /** Null: local is a tail after base's first localShared. Else local's hashes interleave with runs of base's chain. */
  localRefs: Uint8Array | null;
  /** Null: seq is the whole tail. Else seq's hashes interleave with runs KV events hold (kvBlockList reads them). */
  seqRefs: Uint8Array | null;
};

/** The chain columns of requests, for a query that reads them beside others (rows then go to chainPass). */
export const CHAIN_COLUMNS = `chain_base AS base, seq_shared AS seqShared, local_shared AS localShared, seq_count AS seqCount,
  local_count AS localCount, sequence_hashes AS seq, local_hashes AS local, local_refs AS localRefs, seq_refs AS seqRefs`;
const COLUMNS = `id, request_id AS requestId, ${CHAIN_COLUMNS}`;

/** A request row's id and its CHAIN_COLUMNS. */
export type ChainColumns = Omit<ChainRow, "requestId">;

function prepare(c: Database.Database) {
  return {
    row: c.prepare(`SELECT ${COLUMNS} FROM requests WHERE id = ?`),
    session: c.prepare(`SELECT ${COLUMNS} FROM requests WHERE session_id = ? ORDER BY rowid`),
    exists: c.prepare("SELECT 1 FROM requests WHERE id = ?").pluck(),
    named: c.prepare(
      `SELECT id AS rowId, session_id AS sessionId, source, arrived_at AS arrivedAt, seq_count AS seqCount, local_count AS localCount,
         typeof(sequence_hashes) = 'text' OR typeof(local_hashes) = 'text' AS legacy,
         CASE WHEN typeof(sequence_hashes) = 'text' THEN sequence_hashes END AS legacySeq, CASE WHEN typeof(local_hashes) = 'text' THEN local_hashes END AS legacyLocal
       FROM requests WHERE request_id = ? ORDER BY (session_id IS ? AND source IS ?) DESC, rowid DESC LIMIT 1`,
    ),
    previous: c
      .prepare(
        `SELECT id FROM requests WHERE session_id = ? AND trajectory_id IS ? AND arrived_at <= ? AND id <> ? AND (seq_count > 0 OR sequence_hashes IS NOT NULL)
       ORDER BY arrived_at DESC, rowid DESC LIMIT 1`,
      )
      .pluck(),
    previousInSession: c
      .prepare(
        `SELECT id FROM requests WHERE session_id = ? AND arrived_at <= ? AND id <> ? AND (seq_count > 0 OR sequence_hashes IS NOT NULL)
       ORDER BY arrived_at DESC, rowid DESC LIMIT 1`,
      )
      .pluck(),
  };
}

type State = ReturnType<typeof prepare> & { memo: ChainMemo; db: Db };
const cache = new WeakMap<Database.Database, State>();
const MEMO_BYTES = bounds.CHAIN_MEMO_BYTES;

function state(db: Db): State {
  let s = cache.get(db.$client);
  if (!s) cache.set(db.$client, (s = { ...prepare(db.$client), memo: new ChainMemo(MEMO_BYTES), db }));
  return s;
}

/** Rows stored before compact chains hold full chains as decimal text (no base, no counts). */
const isLegacy = (r: { seq: unknown; local: unknown }) => typeof r.seq === "string" || typeof r.local === "string";
const seqCountOf = (r: ChainRow): number | null =>
  isLegacy(r) ? (r.seq === null ? null : hashCount(r.seq)) : r.seqCount;
const localCountOf = (r: ChainRow): number | null =>
  isLegacy(r) ? (r.local === null ? null : hashCount(r.local)) : r.localCount;
const EMPTY = Buffer.alloc(0);
const link = (s: State, r: ChainRow, which: "seq" | "local"): ChainLink =>
  which === "seq"
    ? { base: r.base, shared: r.seqShared, tail: seqTail(s, r) ?? EMPTY }
    : { base: r.base, shared: r.localShared, tail: asBinary(r.local) ?? EMPTY };

/** A row's sequence tail (after its seqShared), its runs held by KV events read from them; null: none stored. */
function seqTail(s: State, r: ChainRow): Buffer | null {
  if (r.seqRefs === null) return asBinary(r.seq);
  const tail = kvBlockList(s.db, r.seq, r.seqRefs);
  const want = (r.seqCount ?? 0) - r.seqShared;
  if (tail === null || tail.byteLength !== want * HASH_BYTES)
    throw new Error(`stored chain ${r.id} refers to KV events no longer stored (${want} sequence hashes expected)`);
  return tail;
}

/** Build one row's full chains, taking bases from `known` (earlier results) before reading rows. */
function build(s: State, r: ChainRow, known: (id: string) => Chains | undefined): Chains {
  const make = (which: "seq" | "local"): Buffer | null => {
    const count = which === "seq" ? seqCountOf(r) : localCountOf(r);
    if (count === null) return null;
    if (which === "local" && r.localRefs !== null) return localFromRuns(s, r, count, known);
    return assembleChain(link(s, r, which), count, (id) => {
      const k = known(id) ?? s.memo.get(id);
      if (k) return k[which] ?? EMPTY;
      const b = s.row.get(id) as ChainRow | undefined;
      if (b && which === "local" && b.localRefs !== null) return localFromRuns(s, b, localCountOf(b) ?? 0, known);
      return b && link(s, b, which);
    });
  };
  return { seq: make("seq"), local: make("local") };
}

/** The local chain of a row stored as runs of its base's full local chain (db/codecs/runs.ts). */
function localFromRuns(s: State, r: ChainRow, count: number, known: (id: string) => Chains | undefined): Buffer {
  if (r.base === null) throw new Error(`stored chain ${r.id} refers to runs of no base`);
  let base = known(r.base) ?? s.memo.get(r.base);
  if (!base) {
    const b = s.row.get(r.base) as ChainRow | undefined;
    if (!b) throw new Error(`stored chain names a missing base ${r.base}`);
    if (b.localRefs !== null)
      throw new Error(`stored chain ${r.id} refers to runs of ${r.base}, itself stored as runs`);
    base = build(s, b, known);
  }
  const out = decodeRuns(asBinary(r.local) ?? EMPTY, r.localRefs!, base.local ?? EMPTY);
  if (out.byteLength !== count * HASH_BYTES)
    throw new Error(`stored chain ${r.id} holds ${out.byteLength / HASH_BYTES} local hashes, not ${count}`);
  return out;
}

/** One request's full chains by row id (requests.id); null when no such row. */
export function chainsOf(db: Db, rowId: string): Chains | null {
  const s = state(db);
  const hit = s.memo.get(rowId);
  if (hit) return hit;
  const r = s.row.get(rowId) as ChainRow | undefined;
  if (!r) return null;
  const c = build(s, r, () => undefined);
  s.memo.set(rowId, c);
  return c;
}

/** One of a row's chains built whole, a base taken from `known` first (null: not known), then the memo, then its row. */
function buildOne(s: State, r: ChainRow, which: "seq" | "local", known: (id: string) => Buffer | null): Buffer | null {
  const count = which === "seq" ? seqCountOf(r) : localCountOf(r);
  if (count === null) return null;
  const knownLocal = (id: string): Chains | undefined => {
    const local = known(id);
    return local ? { seq: null, local } : undefined;
  };
  if (which === "local" && r.localRefs !== null) return localFromRuns(s, r, count, knownLocal);
  return assembleChain(link(s, r, which), count, (id) => {
    const k = known(id) ?? s.memo.get(id)?.[which];
    if (k) return k;
    const b = s.row.get(id) as ChainRow | undefined;
    if (b && which === "local" && b.localRefs !== null) return localFromRuns(s, b, localCountOf(b) ?? 0, knownLocal);
    return b && link(s, b, which);
  });
}

/** What a pass reads of a row: its local chain (null: none), the sequence chain only when it has no local one, and its first sequence hash. */
export type PassChains = { local: Buffer | null; seq: Buffer | null; firstSeq: Buffer | null };
const FIRSTS_KEPT = bounds.FIRSTS_KEPT;

/**
 * Chains of many rows read in one pass (each row with CHAIN_COLUMNS, oldest first), for a reader that needs each
 * turn's local chain and only the first of its sequence hashes: a base built earlier in the pass is taken from it (the
 * pass remembers the newest, PASS_CHAIN_MEMO_BYTES of them), else read as chainsOf reads it.
 */
export function chainPass(db: Db): (r: ChainColumns) => PassChains {
  const s = state(db);
  const locals = new ChainMemo(bounds.PASS_CHAIN_MEMO_BYTES);
  const firsts = new Map<string, Buffer>();
  const none = () => null;
  const arena = new ChainArena();
  return (row) => {
    const r = row as ChainRow;
    const local =
      extendedLocal(r, locals, arena) ?? arena.adopt(buildOne(s, r, "local", (id) => locals.get(id)?.local ?? null));
    let seq: Buffer | null = null;
    let firstSeq: Buffer | null = null;
    if (local === null || local.byteLength === 0 || isLegacy(r)) seq = buildOne(s, r, "seq", none);
    else if ((r.seqCount ?? 0) === 0) firstSeq = null;
    else {
      // Only a chain start's own tail holds its first hash; a continuation's is its base's (its tail is not decoded).
      const tail = r.seqShared === 0 ? seqTail(s, r) : null;
      if (tail !== null && tail.byteLength >= 8) firstSeq = tail.subarray(0, 8);
      else firstSeq = (r.base !== null ? firsts.get(r.base) : undefined) ?? buildOne(s, r, "seq", none);
    }
    if (seq !== null) firstSeq = seq;
    if (firstSeq !== null && firstSeq.byteLength < 8) firstSeq = null;
    if (firstSeq !== null) {
      firstSeq = firstSeq.subarray(0, 8);
      if (firsts.size >= FIRSTS_KEPT) firsts.clear();
      firsts.set(r.id, firstSeq);
    }
    if (local !== null) locals.set(r.id, { seq: null, local });
    return { local, seq, firstSeq };
  };
}

/**
 * Growable buffers for the local chains of one pass. A turn's chain is most often its base's whole chain and a few
 * blocks more (a trajectory's next turn): it is then written right after its base's bytes, when nothing was written
 * there since and the buffer has room, so the turns of a trajectory are views of one buffer instead of a copy each
 * (an hour of steady traffic: ~126 MB of chains copied turn by turn). Bytes once written are never changed.
 */
class ChainArena {
  /** Per buffer made here: bytes written so far. */
  private ends = new WeakMap<ArrayBufferLike, number>();

  /** `base` followed by `tail`'s bytes: in place after base when it ends its buffer's writes and the tail fits. */
  extend(base: Buffer, tail: Uint8Array): Buffer {
    const end = this.ends.get(base.buffer);
    const at = base.byteOffset + base.byteLength;
    if (end === at && at + tail.byteLength <= base.buffer.byteLength) {
      new Uint8Array(base.buffer, at, tail.byteLength).set(tail);
      this.ends.set(base.buffer, at + tail.byteLength);
      return Buffer.from(base.buffer, base.byteOffset, base.byteLength + tail.byteLength);
    }
    const out = this.alloc(base.byteLength + tail.byteLength);
    out.set(base, 0);
    out.set(tail, base.byteLength);
    return out;
  }

  /** A chain built elsewhere, moved into a buffer with room for its next turns (null stays null). */
  adopt(chain: Buffer | null): Buffer | null {
    if (chain === null || chain.byteLength === 0) return chain;
    const out = this.alloc(chain.byteLength);
    out.set(chain, 0);
    return out;
  }

  /**
   * `bytes` in a new buffer with as much room again after them: a trajectory's chain moves to a buffer twice its size
   * when it outgrows one (no floor, so a window of many short chains costs at most twice their bytes while it is read).
   */
  private alloc(bytes: number): Buffer {
    const buffer = new ArrayBuffer(2 * bytes);
    this.ends.set(buffer, bytes);
    return Buffer.from(buffer, 0, bytes);
  }
}

/**
 * A row's local chain when it is its base's whole chain (remembered by the pass) and its own tail after it; else null
 * (built from its links as chainsOf builds it).
 */
function extendedLocal(r: ChainRow, locals: ChainMemo, arena: ChainArena): Buffer | null {
  if (r.base === null || r.localRefs !== null || r.localCount === null || isLegacy(r)) return null;
  const base = locals.get(r.base)?.local;
  if (!base || base.byteLength !== r.localShared * HASH_BYTES) return null;
  const tail = asBinary(r.local) ?? EMPTY;
  if (base.byteLength + tail.byteLength !== r.localCount * HASH_BYTES) return null;
  return arena.extend(base, tail);
}

/** One request's chains as decimal strings ([] when it carried none), for readers that work on the wire form. */
export function chainStringsOf(db: Db, rowId: string): { seq: string[]; local: string[] } {
  const c = chainsOf(db, rowId);
  return { seq: decodeHashes(c?.seq ?? null), local: decodeHashes(c?.local ?? null) };
}

/**
 * Every request of a session with its full chains as decimal strings, keyed by request_id (the latest row wins).
 * One pass in insertion order: a turn's base is an earlier turn already built, so nothing is walked twice.
 */
export function sessionChains(db: Db, sessionId: string): Map<string, ChainStrings> {
  const s = state(db);
  const built = new Map<string, Chains>();
  const out = new Map<string, ChainStrings>();
  for (const r of s.session.iterate(sessionId) as IterableIterator<ChainRow>) {
    const c = build(s, r, (id) => built.get(id));
    built.set(r.id, c);
    out.set(r.requestId, {
      sequence_hashes: c.seq && decodeHashes(c.seq),
      local_hashes: c.local && decodeHashes(c.local),
    });
  }
  return out;
}

/** True when a request row with this id is stored. */
export function requestRowExists(db: Db, rowId: string): boolean {
  return state(db).exists.get(rowId) !== undefined;
}

/**
 * The stored request a prefix_of names, as its resolution needs it: the newest with this request_id in the same
 * session from the same sender, else the newest with it at all (so a wrong session or sender is named); null: none.
 */
export function namedRequest(
  db: Db,
  requestId: string,
  sessionId: string | null,
  source: string | null,
): NamedRequest | null {
  const r = state(db).named.get(requestId, sessionId, source) as
    | (Omit<NamedRequest, "seqCount"> & {
        seqCount: number | null;
        legacy: number;
        legacySeq: string | null;
        legacyLocal: string | null;
      })
    | undefined;
  if (!r) return null;
  const legacy = r.legacy === 1;
  return {
    rowId: r.rowId,
    sessionId: r.sessionId,
    source: r.source,
    arrivedAt: r.arrivedAt,
    seqCount: legacy ? hashCount(r.legacySeq) : (r.seqCount ?? 0),
    localCount: legacy ? (r.legacyLocal === null ? null : hashCount(r.legacyLocal)) : r.localCount,
  };
}

/** The turn a full-list request most likely extends: its trajectory's previous turn, else its session's; null if none. */
export function previousTurnOf(
  db: Db,
  e: { id: string; session_id?: string; trajectory_id?: string; arrived_at: number },
): string | null {
  if (e.session_id === undefined) return null;
  const s = state(db);
  const same = s.previous.get(e.session_id, e.trajectory_id ?? null, e.arrived_at, e.id) as string | undefined;
  return same ?? (s.previousInSession.get(e.session_id, e.arrived_at, e.id) as string | undefined) ?? null;
}

/** Remember a just-stored row's full chains (ingest has them in hand). */
export function rememberChains(db: Db, rowId: string, c: Chains): void {
  state(db).memo.set(rowId, c);
}

/** Forget remembered chains (after a rolled-back transaction). */
export function forgetChains(db: Db): void {
  cache.get(db.$client)?.memo.clear();
}

/**
 * Store literally the sequence tail of the oldest rows (at most `limit`) before `ts` (Unix ms) that refer to KV events
 * (seq_refs), so those KV events can be deleted without breaking their chains. Returns the ts of the oldest row still
 * referring to KV events afterwards (null: none): KV events older than it by the reference window may go.
 */
export function storeSeqTailsBefore(db: Db, ts: number, limit: number): number | null {
  const s = state(db);
  const c = db.$client;
  const rows = c
    .prepare(
      `SELECT ${COLUMNS} FROM requests INDEXED BY requests_seq_refs WHERE seq_refs IS NOT NULL AND ts < ? ORDER BY ts LIMIT ?`,
    )
    .all(ts, limit) as ChainRow[];
  const store = c.prepare("UPDATE requests SET sequence_hashes = ?, seq_refs = NULL WHERE id = ?");
  for (const r of rows) store.run(seqTail(s, r), r.id);
  return c
    .prepare("SELECT min(ts) FROM requests INDEXED BY requests_seq_refs WHERE seq_refs IS NOT NULL")
    .pluck()
    .get() as number | null;
}
