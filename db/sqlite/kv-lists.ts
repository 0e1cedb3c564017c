import type Database from "better-sqlite3";
import { asBinary, encodeHashes, HASH_BYTES } from "../codecs/chains";
import { decodeBlockList, encodeBlockList, type OriginInfo } from "../codecs/kv-lists";
import type { Db } from "./client";
import { KV_LOCATIONS_BYTES, Locations, wordsOf } from "./kv-locations";
import { RECENT_BYTES, RecentRows, type Recent } from "./kv-recent";
import { KV_INFO_CACHE_ENTRIES, KV_READ_CACHE_BYTES, KV_READ_CACHE_ENTRIES } from "../../lib/memory-bounds";

export { KV_LOCATIONS_BYTES };

// KV block lists on the ingest path (kv_events.block_hashes / block_refs, db/codecs/kv-lists.ts): each connection
// remembers where the events it stored hold hashes literally, so a later list that repeats them (a block stored again
// after an eviction, on another worker, or removed) is stored as references; ingest threads share one map
// (shareKvLocations). Nothing here is durable: after a restart, or on a connection with a map of its own, lists are
// stored literally until the map has warmed up again.

/**
 * A reference names an origin at most this much older (event time, ms). Encoding reads the origin (it exists when the
 * reference is written); the window bounds which rows retention can leave referring to an origin it deleted.
 */
export const REF_WINDOW_MS = 60 * 60_000;
type Pending = { literal: Buffer; ts: number };
/** The map is allocated on the first list encoded (KV_LOCATION_SLOTS, lib/memory-bounds.ts): connections that only read lists never build one. */
type State = {
  map: Locations | null;
  pending: Pending | null;
  origin: Database.Statement;
  info: Database.Statement;
  /** Literal hashes of rows this connection stored recently, as words (kv-recent.ts). */
  recent: RecentRows;
  /** Origins read by kvBlockList, newest last (readers go through events in order: their origins are recent). */
  read: Map<number, Buffer | null>;
  readOrder: number[];
  readHead: number;
  /** Bytes of the origins in `read`. */
  readBytes: number;
  /** Where each hash of the list being encoded is held (see scratch). */
  at: { rowid: Float64Array; pos: Int32Array; sec: Float64Array };
  /**
   * Inside kvListBatch only (null outside it): origins' time and literal count by rowid, kept across the lists of one
   * write transaction, in which no other connection can delete or change a row. This connection's rows as it stores
   * them, others' as first read; only rows found.
   */
  infos: Map<number, OriginInfo> | null;
  /** Origins found gone, for the list being encoded (emptied per list). */
  misses: Map<number, OriginInfo | null>;
  /** originOf bound to this state, handed to encodeBlockList (one closure per connection, not per list). */
  originOf: (rowid: number) => OriginInfo | null;
};
/** Origin infos kept in one batch (then emptied: the next lists read them again). */
const INFO_CACHE = KV_INFO_CACHE_ENTRIES;
const READ_CACHE = KV_READ_CACHE_ENTRIES;
const READ_CACHE_BYTES = KV_READ_CACHE_BYTES;

let recentLimit = RECENT_BYTES;

/** Bound the remembered rows of connections whose state is created from now on (tests: round the ring quickly). */
export function limitRecentBytes(bytes: number): void {
  recentLimit = bytes;
}
const states = new WeakMap<Database.Database, State>();

function state(db: Db): State {
  let s = states.get(db.$client);
  if (!s) {
    const st: State = {
      map: null,
      pending: null,
      recent: new RecentRows(recentLimit),
      read: new Map(),
      readOrder: [],
      readHead: 0,
      readBytes: 0,
      at: { rowid: new Float64Array(256), pos: new Int32Array(256), sec: new Float64Array(256) },
      infos: null,
      misses: new Map(),
      originOf: (rowid) => originOf(st, rowid),
      origin: db.$client.prepare("SELECT block_hashes FROM kv_events WHERE rowid = ?").pluck(),
      info: db.$client.prepare("SELECT ts, length(block_hashes) AS bytes FROM kv_events WHERE rowid = ?"),
    };
    s = st;
    states.set(db.$client, s);
  }
  return s;
}

/**
 * Make this connection use a location map in shared memory (KV_LOCATIONS_BYTES, zeroed): ingest threads whose write
 * transactions never overlap (their write turns, and SQLite's write lock: the map is only read and written inside
 * a write transaction) then store a list as references to what any of them stored, not only to their own rows.
 */
export function shareKvLocations(db: Db, buffer: SharedArrayBuffer): void {
  if (buffer.byteLength < KV_LOCATIONS_BYTES) throw new Error("shared KV location map too small");
  state(db).map = new Locations(buffer);
}

/**
 * The block_hashes and block_refs values of a kv.stored / kv.removed event at `ts` (Unix ms). The row's rowid must
 * then be given to kvRowStored once it is inserted (its literal hashes become origins for later lists). `hashes` may
 * be given already encoded (encodeHashes: the ingest does that before its write turn).
 */
export function kvListColumns(db: Db, hashes: readonly string[] | Buffer, ts: number): [Buffer, Buffer | null] {
  const s = state(db);
  const enc = encodeAgainstKv(s, Buffer.isBuffer(hashes) ? hashes : encodeHashes(hashes), ts);
  s.pending = { literal: enc.literal, ts };
  return [enc.literal, enc.refs];
}

/**
 * A list of 8-byte hashes at `ts` (Unix ms) that is not a KV event's (a request's sequence tail), as the hashes it keeps
 * literally and the program referring to KV events for the rest (null: all literal). It becomes no origin itself.
 * Read back with kvBlockList (a reference whose KV event is gone reads as nothing: the reader checks the count).
 */
export function kvRefColumns(db: Db, list: Buffer, ts: number): [Buffer, Buffer | null] {
  const s = state(db);
  if (list.byteLength === 0 || !s.map) return [list, null];
  const enc = encodeAgainstKv(s, list, ts);
  return [enc.literal, enc.refs];
}

function encodeAgainstKv(s: State, list: Buffer, ts: number) {
  const map = (s.map ??= new Locations());
  const minSec = Math.max(0, Math.ceil((ts - REF_WINDOW_MS) / 1000));
  s.misses.clear();
  const n = list.byteLength / HASH_BYTES;
  const at = scratch(s, n);
  const words = wordsOf(list);
  for (let i = 0; i < n;) i += locateRun(s, map, words, i, minSec, at);
  return encodeBlockList(list, at, s.originOf);
}

/** An origin's time and literal count by rowid (null: not stored), read once per batch (or per list outside one). */
function originOf(s: State, rowid: number): OriginInfo | null {
  let o: OriginInfo | null | undefined = s.infos?.get(rowid) ?? s.misses.get(rowid);
  if (o === undefined) {
    const r = s.info.get(rowid) as { ts: number; bytes: number | null } | undefined;
    o =
      r && typeof r.bytes === "number"
        ? { sec: Math.max(0, Math.floor(r.ts / 1000)), count: r.bytes / HASH_BYTES }
        : null;
    if (o) keepInfo(s, rowid, o);
    else s.misses.set(rowid, o);
  }
  return o;
}

/** The connection's location arrays, at least n long (one list is encoded at a time; entries past n are stale). */
function scratch(s: State, n: number): State["at"] {
  if (s.at.rowid.length < n) {
    const size = Math.max(n, s.at.rowid.length * 2);
    s.at = { rowid: new Float64Array(size), pos: new Int32Array(size), sec: new Float64Array(size) };
  }
  return s.at;
}

/** Hash a of x equals hash b of the remembered row `r` (lists as wordsOf: two 32-bit words per hash). */
function sameHash(x: Uint32Array, a: number, ring: Uint32Array, r: Recent, b: number): boolean {
  return b >= 0 && 2 * b + 1 < r.words && x[2 * a] === ring[r.at + 2 * b] && x[2 * a + 1] === ring[r.at + 2 * b + 1];
}

/**
 * Locate hash i in the map; when its origin's literal hashes are still in memory, the words after it that continue
 * there (ascending or descending) are located by comparing words instead of looking each up. Returns words located.
 */
function locateRun(
  s: State,
  map: Locations,
  list: Uint32Array,
  i: number,
  minSec: number,
  at: { rowid: Float64Array; pos: Int32Array; sec: Float64Array },
): number {
  map.get(list[2 * i]!, list[2 * i + 1]!, minSec, at, i);
  const r = at.rowid[i]!;
  const buf = r === 0 ? undefined : s.recent.get(r);
  const n = list.length / 2;
  const ring = s.recent.ring;
  if (!buf || !ring || i + 1 >= n) return 1;
  const p = at.pos[i]!;
  const step = sameHash(list, i + 1, ring, buf, p + 1) ? 1 : sameHash(list, i + 1, ring, buf, p - 1) ? -1 : 0;
  if (step === 0) return 1;
  let k = 1;
  for (; i + k < n && sameHash(list, i + k, ring, buf, p + step * k); k++) {
    at.rowid[i + k] = r;
    at.pos[i + k] = p + step * k;
    at.sec[i + k] = at.sec[i]!;
  }
  return k;
}

/** Record the literal hashes of the row just inserted for the last kvListColumns call (skip when it was a duplicate). */
export function kvRowStored(db: Db, rowid: number | bigint): void {
  const s = state(db);
  const p = s.pending;
  s.pending = null;
  if (!p || !s.map) return;
  const n = p.literal.byteLength / HASH_BYTES;
  const sec = Math.max(0, Math.floor(p.ts / 1000));
  const id = Number(rowid);
  const at = s.recent.remember(id, p.literal);
  keepInfo(s, id, { sec, count: n });
  const words = at < 0 ? wordsOf(p.literal) : s.recent.ring!;
  const o = at < 0 ? 0 : at;
  const map = s.map;
  for (let k = 0; k < n; k++) map.set(words[o + 2 * k]!, words[o + 2 * k + 1]!, id, k, sec);
}

/** Forget every remembered location and origin read (after a rolled-back transaction or a prune: rowids may be reused). */
export function forgetKvLocations(db: Db): void {
  const s = states.get(db.$client);
  if (!s) return;
  s.map?.clear();
  s.pending = null;
  s.recent.clear();
  s.read.clear();
  s.readOrder = [];
  s.readHead = 0;
  s.readBytes = 0;
  s.infos?.clear();
}

function keepInfo(s: State, rowid: number, info: OriginInfo): void {
  const infos = s.infos;
  if (!infos) return;
  if (infos.size >= INFO_CACHE) infos.clear();
  infos.set(rowid, info);
}

/**
 * Run fn, the lists of one write transaction (call it inside the transaction): the origins their encoding reads are
 * read once for all of them, not once per list (no other connection can delete or change a row meanwhile).
 */
export function kvListBatch<T>(db: Db, fn: () => T): T {
  const s = state(db);
  s.infos = new Map();
  try {
    return fn();
  } finally {
    s.infos = null;
  }
}

/** Origin lists this connection keeps read back, and their bytes (bounded by KV_READ_CACHE_*). */
export function kvReadCacheSize(db: Db): { entries: number; bytes: number } {
  const s = states.get(db.$client);
  return { entries: s?.read.size ?? 0, bytes: s?.readBytes ?? 0 };
}

/** A stored KV block list in full (8-byte words), references resolved through the origins still stored. */
export function kvBlockList(db: Db, hashes: Uint8Array | string | null, refs: Uint8Array | null): Buffer | null {
  const literal = asBinary(hashes);
  if (literal === null) return null;
  if (refs === null) return literal;
  const s = state(db);
  return decodeBlockList(literal, refs, (rowid) => {
    const hit = s.read.get(rowid);
    if (hit !== undefined) return hit;
    const b = asBinary(s.origin.get(rowid) as Uint8Array | string | undefined);
    s.read.set(rowid, b);
    s.readOrder.push(rowid);
    s.readBytes += b?.byteLength ?? 0;
    while ((s.read.size > READ_CACHE || s.readBytes > READ_CACHE_BYTES) && s.readHead < s.readOrder.length) {
      const old = s.readOrder[s.readHead++]!;
      s.readBytes -= s.read.get(old)?.byteLength ?? 0;
      s.read.delete(old);
    }
    if (s.readHead > 65_536) {
      s.readOrder = s.readOrder.slice(s.readHead);
      s.readHead = 0;
    }
    return b;
  });
}
