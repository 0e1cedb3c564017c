import type Database from "better-sqlite3";
import { asBinary, encodeHashes, HASH_BYTES } from "../chain-codec";
import { decodeBlockList, encodeBlockList, type Location } from "../kv-list-codec";
import type { Db } from "../client";

// KV block lists on the ingest path (kv_events.block_hashes / block_refs, db/kv-list-codec.ts): each connection
// remembers where the events it stored hold hashes literally, so a later list that repeats them (a block stored again
// after an eviction, on another worker, or removed) is stored as references. Nothing here is durable: after a restart,
// or on another ingest connection, lists are stored literally until the map has warmed up again.

/**
 * A reference names an origin at most this much older (event time, ms). Encoding reads the origin (it exists when the
 * reference is written); the window bounds which rows retention can leave referring to an origin it deleted.
 */
export const REF_WINDOW_MS = 60 * 60_000;
const SLOTS = 1 << 21;
/** The map is emptied when this full (open addressing stays short-probed; a clear only costs literal lists). */
const MAX_ENTRIES = SLOTS * 0.6;

/** Hash → latest literal location, open addressing on the hash's two 32-bit halves (no allocation per entry). */
class Locations {
  private hi = new Uint32Array(SLOTS);
  private lo = new Uint32Array(SLOTS);
  private rowid = new Float64Array(SLOTS);
  private pos = new Int32Array(SLOTS);
  private ts = new Float64Array(SLOTS);
  size = 0;

  /** The slot holding the hash, or the empty one (rowid 0: rowids start at 1) where it would go. */
  private slot(hi: number, lo: number): number {
    let i = (Math.imul(hi ^ Math.imul(lo, 0x9e3779b1), 0x85ebca6b) >>> 0) & (SLOTS - 1);
    while (this.rowid[i] !== 0 && (this.hi[i] !== hi || this.lo[i] !== lo)) i = (i + 1) & (SLOTS - 1);
    return i;
  }

  get(hi: number, lo: number, minTs: number): Location | null {
    const i = this.slot(hi, lo);
    if (this.rowid[i] === 0 || this.ts[i]! < minTs) return null;
    return { rowid: this.rowid[i]!, pos: this.pos[i]! };
  }

  set(hi: number, lo: number, rowid: number, pos: number, ts: number): void {
    if (this.size >= MAX_ENTRIES) this.clear();
    const i = this.slot(hi, lo);
    if (this.rowid[i] === 0) {
      this.hi[i] = hi;
      this.lo[i] = lo;
      this.size++;
    }
    this.rowid[i] = rowid;
    this.pos[i] = pos;
    this.ts[i] = ts;
  }

  clear(): void {
    this.rowid.fill(0);
    this.size = 0;
  }
}

type Pending = { literal: Buffer; ts: number };
/** The map is allocated on the first list encoded (~56 MiB): connections that only read lists never build one. */
type State = { map: Locations | null; pending: Pending | null; origin: Database.Statement };
const states = new WeakMap<Database.Database, State>();

function state(db: Db): State {
  let s = states.get(db.$client);
  if (!s) {
    s = {
      map: null,
      pending: null,
      origin: db.$client.prepare("SELECT block_hashes FROM kv_events WHERE rowid = ?").pluck(),
    };
    states.set(db.$client, s);
  }
  return s;
}

/**
 * The block_hashes and block_refs values of a kv.stored / kv.removed event at `ts` (Unix ms). The row's rowid must
 * then be given to kvRowStored once it is inserted (its literal hashes become origins for later lists).
 */
export function kvListColumns(db: Db, hashes: readonly string[], ts: number): [Buffer, Buffer | null] {
  const s = state(db);
  const map = (s.map ??= new Locations());
  const list = encodeHashes(hashes);
  const minTs = ts - REF_WINDOW_MS;
  const origins = new Map<number, Buffer | null>();
  const origin = (rowid: number) => {
    let b = origins.get(rowid);
    if (b === undefined) origins.set(rowid, (b = asBinary(s.origin.get(rowid) as Uint8Array | string | undefined)));
    return b;
  };
  const enc = encodeBlockList(
    list,
    (i) => map.get(list.readUInt32BE(i * HASH_BYTES), list.readUInt32BE(i * HASH_BYTES + 4), minTs),
    origin,
  );
  s.pending = { literal: enc.literal, ts };
  return [enc.literal, enc.refs];
}

/** Record the literal hashes of the row just inserted for the last kvListColumns call (skip when it was a duplicate). */
export function kvRowStored(db: Db, rowid: number | bigint): void {
  const s = state(db);
  const p = s.pending;
  s.pending = null;
  if (!p || !s.map) return;
  const n = p.literal.byteLength / HASH_BYTES;
  for (let k = 0; k < n; k++)
    s.map.set(
      p.literal.readUInt32BE(k * HASH_BYTES),
      p.literal.readUInt32BE(k * HASH_BYTES + 4),
      Number(rowid),
      k,
      p.ts,
    );
}

/** Forget every remembered location (after a rolled-back transaction: its rowids may be reused). */
export function forgetKvLocations(db: Db): void {
  const s = states.get(db.$client);
  if (!s) return;
  s.map?.clear();
  s.pending = null;
}

/** A stored KV block list in full (8-byte words), references resolved through the origins still stored. */
export function kvBlockList(db: Db, hashes: Uint8Array | string | null, refs: Uint8Array | null): Buffer | null {
  const literal = asBinary(hashes);
  if (literal === null) return null;
  if (refs === null) return literal;
  const s = state(db);
  return decodeBlockList(literal, refs, (rowid) => asBinary(s.origin.get(rowid) as Uint8Array | string | undefined));
}
