import type Database from "better-sqlite3";
import type { Db } from "./client";
import { decodeIntervals, type Interval } from "./attribution-intervals";
import { BlockTable, halvesOf, KeyFilter } from "./attribution-block-table";
import { attrBlocks, LIST } from "./attribution-packed";
import type { PackedKeys } from "./packed-keys";
import { resetSeen } from "./attribution-seen";
import type { Round } from "./attribution-flush";
import { ATTR_BLOCK_SLOTS, ATTR_LIST_CACHE, ATTR_LIST_CACHE_INTERVALS } from "../../lib/memory-bounds";

// The attribution index's per-connection state (see attribution-index.ts): names, clears, the block table, cached
// lists, and the reads behind them.

const LIST_CACHE_MAX = ATTR_LIST_CACHE;
export const EMPTY: readonly Interval[] = [];

/** Where a block was resident at a time t, and its latest removal before t (the chosen worker's when it had one). */
export type Residency = {
  residentOn: readonly string[];
  lastRemoval: { reason: string; at: number; workerId: string } | null;
};

export type State = {
  /** attr_blocks: a block's list and first-seen mark by its key's halves (hi, lo). */
  packed: PackedKeys;
  listGet: Database.Statement;
  listAdd: Database.Statement;
  listNew: Database.Statement;
  listSub: Database.Statement;
  listDrop: Database.Statement;
  names: Map<string, number>;
  byId: string[];
  clears: Map<number, number[]>;
  /** Blocks' list ids in memory and on disk (0 is the empty list: no row). */
  blocks: BlockTable;
  /** Every block that may have a list on disk (a superset): a block outside it is not read from attr_blocks. */
  onDisk: KeyFilter;
  lists: Map<number, readonly Interval[]>;
  /** Intervals of the cached lists together (see cacheList; bounded by ATTR_LIST_CACHE_INTERVALS). */
  listIntervals: number;
  nextList: number;
  /** Dirty blocks in key order, written from the end: each short transaction touches one narrow range of pages. */
  flushOrder: { hi: Int32Array; lo: Int32Array; left: number };
  /** The flush round under way (attribution-flush.ts), null between rounds. */
  round: Round | null;
  /** kv_events rowid applied in memory; saved as the "kv" cursor by the flush that writes its effects. */
  kvApplied: number;
  /** Facts per list for the last (time, worker) asked: the blocks of one turn mostly share a few lists. */
  facts: { t: number; chosen: number; byList: Map<number, Residency> };
};
const states = new WeakMap<Database.Database, State>();

export function state(db: Db): State {
  const c = db.$client;
  let s = states.get(c);
  if (s) return s;
  const names = new Map<string, number>();
  const byId: string[] = [];
  for (const r of c.prepare("SELECT id, name FROM attr_names").all() as { id: number; name: string }[]) {
    names.set(r.name, r.id);
    byId[r.id] = r.name;
  }
  const clears = new Map<number, number[]>();
  for (const r of c.prepare("SELECT worker, at FROM attr_clears ORDER BY at").all() as {
    worker: number;
    at: number;
  }[]) {
    clears.set(r.worker, [...(clears.get(r.worker) ?? []), r.at]);
  }
  s = {
    packed: attrBlocks(c),
    listGet: c.prepare("SELECT intervals FROM attr_lists WHERE id = ?").pluck(),
    listAdd: c.prepare("UPDATE attr_lists SET refs = refs + ? WHERE id = ?"),
    listNew: c.prepare("INSERT INTO attr_lists (id, refs, intervals) VALUES (?, ?, ?)"),
    listSub: c.prepare("UPDATE attr_lists SET refs = refs - ? WHERE id = ?"),
    listDrop: c.prepare("DELETE FROM attr_lists WHERE id = ? AND refs <= 0"),
    names,
    byId,
    clears,
    blocks: new BlockTable(ATTR_BLOCK_SLOTS, true),
    onDisk: filters.get(c) ?? filterOfDisk(c),
    lists: new Map([[0, EMPTY]]),
    listIntervals: 0,
    nextList: ((c.prepare("SELECT max(id) FROM attr_lists").pluck().get() as number | null) ?? 0) + 1,
    flushOrder: { hi: new Int32Array(0), lo: new Int32Array(0), left: 0 },
    round: null,
    kvApplied: (c.prepare("SELECT value FROM attr_state WHERE key = 'kv'").pluck().get() as number | undefined) ?? 0,
    facts: { t: NaN, chosen: NaN, byList: new Map() },
  };
  // A database from before this index (a kv cursor but no names yet): rebuild the index from the retained KV events.
  if (names.size === 0) s.kvApplied = 0;
  states.set(c, s);
  return s;
}

/**
 * Per connection, kept across resetIndexCache: rows of a rolled-back flush leave it a superset, so a transaction that
 * failed (e.g. busy while ingest held the lock) does not cost a scan of attr_blocks.
 */
const filters = new WeakMap<Database.Database, KeyFilter>();

/** A filter over the blocks attr_blocks gives a list (read once per connection, and again when it fills up). */
export function filterOfDisk(c: Database.Database): KeyFilter {
  const p = attrBlocks(c);
  // Sized from the keys the table counts (those with a list are most of them): no pass over it just to count.
  const f = new KeyFilter(Math.max(2_000_000, p.size() * 2));
  p.scan((hi, lo, b, at) => {
    if (p.value(b, at, LIST) !== 0) f.add(hi, lo);
  });
  filters.set(c, f);
  return f;
}

/** Forget this connection's cached index rows and unwritten marks (after a rolled-back transaction). */
export function resetIndexCache(db: Db): void {
  states.delete(db.$client);
  resetSeen(db);
}

/** The attr_names id of a worker id or reason (created on first use); -1 when `create` is false and it is unknown. */
export function nameId(db: Db, name: string, create = true): number {
  const s = state(db);
  const id = s.names.get(name);
  if (id !== undefined || !create) return id ?? -1;
  db.$client.prepare("INSERT OR IGNORE INTO attr_names (name) VALUES (?)").run(name);
  const got = db.$client.prepare("SELECT id FROM attr_names WHERE name = ?").pluck().get(name) as number;
  s.names.set(name, got);
  s.byId[got] = name;
  return got;
}

/**
 * The table slot of every block of a list of 8-byte hashes, in order; the blocks it does not hold yet are read (their
 * buckets of attr_blocks, several to a query; none when the filter says a block has no list on disk). Room is reserved
 * first, so the slots stay valid until more blocks are added.
 */
export function slotsOf(s: State, hashes: Buffer): Int32Array {
  const n = hashes.length >>> 3;
  const t = s.blocks;
  t.reserve(n);
  const slots = new Int32Array(n);
  const his = new Int32Array(n);
  const los = new Int32Array(n);
  const miss: number[] = [];
  for (let k = 0; k < n; k++) {
    const hi = (his[k] = hashes.readInt32BE(k * 8));
    const lo = (los[k] = hashes.readInt32BE(k * 8 + 4));
    const i = t.probe(hi, lo);
    if (i >= 0) {
      slots[k] = i;
      t.touch(i);
    } else if (s.onDisk.mightHold(hi, lo)) miss.push(k);
    else slots[k] = t.addAt(-1 - i, hi, lo, 0);
  }
  if (miss.length === 0) return slots;
  const found = new Map<number, number>();
  s.packed.lookup(his, los, miss, (k, b, at) => found.set(k, s.packed.value(b, at, LIST)!));
  for (const k of miss) {
    const i = t.find(his[k]!, los[k]!);
    slots[k] = i >= 0 ? i : t.add(his[k]!, los[k]!, found.get(k) ?? 0);
  }
  return slots;
}

/** The table slot of a block (read from attr_blocks on first use). */
export function slotOf(s: State, hi: number, lo: number): number {
  const i = s.blocks.probe(hi, lo);
  if (i >= 0) {
    s.blocks.touch(i);
    return i;
  }
  if (!s.onDisk.mightHold(hi, lo)) return s.blocks.addAt(-1 - i, hi, lo, 0);
  return s.blocks.add(hi, lo, (s.packed.get(hi, lo)?.[LIST] as number | undefined) ?? 0);
}

export function curOf(s: State, hash: bigint): number {
  const [hi, lo] = halvesOf(hash);
  const i = slotOf(s, hi, lo);
  return s.blocks.cur(i);
}

export function listOf(s: State, id: number): readonly Interval[] {
  let l = s.lists.get(id);
  if (!l) {
    const blob = s.listGet.get(id) as Buffer | undefined;
    l = blob ? decodeIntervals(blob) : EMPTY;
    cacheList(s, id, l);
  }
  return l;
}

/** Keep list `id` in the cache, counting its intervals. */
export function cacheList(s: State, id: number, l: readonly Interval[]): void {
  const before = s.lists.get(id);
  if (before) s.listIntervals -= before.length;
  s.lists.set(id, l);
  s.listIntervals += l.length;
}

/** Whether the cached lists hold more intervals than their bound: the job flushes, and the flush cuts the cache. */
export function listCacheFull(db: Db): boolean {
  return state(db).listIntervals >= ATTR_LIST_CACHE_INTERVALS;
}

/** Read one block's intervals (cached). */
export function intervalsOf(db: Db, hash: bigint): readonly Interval[] {
  const s = state(db);
  return listOf(s, curOf(s, hash));
}

/**
 * Once every change is written: the block table back to its slots if dirty blocks made it grow, and the cached lists,
 * past either of their bounds (lists, intervals), down to three quarters of both, oldest cached first (a list dropped
 * that a block still points to is read again when asked for). Past the intervals, the lists no held block points to go
 * first: most are lists that blocks left for newer ones since the last flush, not needed again.
 * Cutting a quarter at a time keeps the heap level instead of a sawtooth from empty to full.
 */
export function trimCache(s: State) {
  s.blocks.trim(ATTR_BLOCK_SLOTS / 2);
  if (s.listIntervals > ATTR_LIST_CACHE_INTERVALS) {
    const inUse = s.blocks.values();
    for (const [id, l] of s.lists)
      if (id !== 0 && !inUse.has(id)) {
        s.lists.delete(id);
        s.listIntervals -= l.length;
      }
  }
  if (s.lists.size > LIST_CACHE_MAX || s.listIntervals > ATTR_LIST_CACHE_INTERVALS) {
    const lists = Math.floor((LIST_CACHE_MAX * 3) / 4);
    const intervals = Math.floor((ATTR_LIST_CACHE_INTERVALS * 3) / 4);
    for (const [id, l] of s.lists) {
      if (s.lists.size <= lists && s.listIntervals <= intervals) break;
      if (id === 0) continue;
      s.lists.delete(id);
      s.listIntervals -= l.length;
    }
  }
  s.facts.byList.clear();
}

/** The first clear of worker w at or after `from` (Unix ms), or null. */
export function clearAfter(s: State, w: number, from: number): number | null {
  for (const at of s.clears.get(w) ?? []) if (at >= from) return at;
  return null;
}

/** An interval with a later clear of its worker applied: when and why it ended, or null while resident. */
export function endOf(s: State, v: Interval): { at: number; why: number } | null {
  if (v.removedAt !== null) return { at: v.removedAt, why: v.why };
  if (s.clears.size === 0) return null;
  const at = clearAfter(s, v.w, v.storedAt);
  return at === null ? null : { at, why: nameIdOf(s, "cleared") };
}

export const nameIdOf = (s: State, name: string) => s.names.get(name) ?? -1;
/** The kv_events rowid the in-memory index has applied (at least the saved "kv" cursor). */
export function kvApplied(db: Db): number {
  return state(db).kvApplied;
}

/** Blocks changed in memory and not yet written. */
export function dirtyBlocks(db: Db): number {
  return state(db).blocks.dirtyCount;
}
