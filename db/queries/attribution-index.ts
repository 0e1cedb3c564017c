import type Database from "better-sqlite3";
import type { BlockFacts } from "../../server/analysis/attribution";
import type { Db } from "../client";
import { decodeIntervals, encodeIntervals, type Interval } from "./attribution-intervals";

export { decodeIntervals, encodeIntervals, type Interval } from "./attribution-intervals";

// The attribution job's residency index: one row per block (its i64 sequence hash as the rowid) holding every
// stored→removed interval of that block on any worker as varints (~8 bytes per interval); worker ids and removal
// reasons are small integers (attr_names). A `kv.cleared` is kept once per worker (attr_clears) and closes, on read, every
// interval of that worker that was open when it was applied. The job applies KV events to decoded rows in memory and
// writes each changed block once per flush (flushIndex), in short transactions; applying an event twice changes
// nothing, so a flush cut short (a crash between its transactions) is repaired by re-applying from the saved cursor.

/** Intervals kept per block (oldest closed ones dropped first): a block stored and evicted more often is capped. */
export const MAX_INTERVALS = 64;
const CACHE_MAX = 400_000;

type State = {
  get: Database.Statement;
  put: Database.Statement;
  del: Database.Statement;
  names: Map<string, number>;
  byId: string[];
  clears: Map<number, number[]>;
  cache: Map<bigint, Interval[]>;
  /** attr_seen first_at of recently read or written sequence hashes (a read-through, write-through cache). */
  seen: Map<bigint, number>;
  seenGet: Database.Statement;
  seenPut: Database.Statement;
  dirty: Set<bigint>;
  /** Dirty blocks in key order, written from the end: each short transaction touches one narrow range of pages. */
  flushOrder: bigint[];
  /** kv_events rowid applied in memory; saved as the "kv" cursor by the flush that writes its effects. */
  kvApplied: number;
};
const states = new WeakMap<Database.Database, State>();

function state(db: Db): State {
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
    get: c.prepare("SELECT intervals FROM attr_blocks WHERE hash = ?").pluck(),
    put: c.prepare(
      "INSERT INTO attr_blocks (hash, intervals) VALUES (?, ?) ON CONFLICT(hash) DO UPDATE SET intervals = excluded.intervals",
    ),
    del: c.prepare("DELETE FROM attr_blocks WHERE hash = ?"),
    seen: new Map(),
    seenGet: c.prepare("SELECT first_at FROM attr_seen WHERE hash = ?").pluck(),
    seenPut: c.prepare(
      "INSERT INTO attr_seen (hash, first_at) VALUES (?, ?) ON CONFLICT(hash) DO UPDATE SET first_at = min(first_at, excluded.first_at)",
    ),
    names,
    byId,
    clears,
    cache: new Map(),
    dirty: new Set(),
    flushOrder: [],
    kvApplied: (c.prepare("SELECT value FROM attr_state WHERE key = 'kv'").pluck().get() as number | undefined) ?? 0,
  };
  // A database from before this index (a kv cursor but no names yet): rebuild the index from the retained KV events.
  if (names.size === 0) s.kvApplied = 0;
  states.set(c, s);
  return s;
}

/** Forget this connection's cached index rows (after a rolled-back transaction: the cache may hold its writes). */
export function resetIndexCache(db: Db): void {
  states.delete(db.$client);
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

/** Read one block's intervals (cached). */
export function intervalsOf(db: Db, hash: bigint): Interval[] {
  const s = state(db);
  const hit = s.cache.get(hash);
  if (hit) return hit;
  const blob = s.get.get(hash) as Buffer | undefined;
  const list = blob ? decodeIntervals(blob) : [];
  remember(s, hash, list);
  return list;
}

function remember(s: State, hash: bigint, list: Interval[]) {
  s.cache.set(hash, list);
}

const SEEN_MAX = 500_000;

/** When a sequence hash was first cacheable (attr_seen), or undefined when never. */
export function seenFirstAt(db: Db, hash: bigint): number | undefined {
  const s = state(db);
  const hit = s.seen.get(hash);
  if (hit !== undefined) return hit;
  const at = s.seenGet.get(hash) as number | undefined;
  if (at !== undefined) rememberSeen(s, hash, at);
  return at;
}

/** Record that a sequence hash was cacheable at `at` (keeps the earliest time). */
export function markSeen(db: Db, hash: bigint, at: number): void {
  const s = state(db);
  s.seenPut.run(hash, at);
  const had = s.seen.get(hash);
  if (had === undefined || at < had) rememberSeen(s, hash, had === undefined ? at : Math.min(had, at));
}

/** Drop the cached first-seen marks (after rows were deleted underneath them). */
export function forgetSeen(db: Db): void {
  state(db).seen.clear();
}

function rememberSeen(s: State, hash: bigint, at: number) {
  if (s.seen.size >= SEEN_MAX) s.seen.delete(s.seen.keys().next().value as bigint);
  s.seen.set(hash, at);
}

/** Drop clean cached rows, oldest first, down to the cache bound (dirty ones stay until flushed). */
function trimCache(s: State) {
  for (const k of s.cache.keys()) {
    if (s.cache.size <= CACHE_MAX) break;
    if (!s.dirty.has(k)) s.cache.delete(k);
  }
}

/** The first clear of worker w at or after `from` (Unix ms), or null. */
function clearAfter(s: State, w: number, from: number): number | null {
  for (const at of s.clears.get(w) ?? []) if (at >= from) return at;
  return null;
}

/** An interval with a later clear of its worker applied: when and why it ended, or null while resident. */
function endOf(s: State, v: Interval): { at: number; why: number } | null {
  if (v.removedAt !== null) return { at: v.removedAt, why: v.why };
  if (s.clears.size === 0) return null;
  const at = clearAfter(s, v.w, v.storedAt);
  return at === null ? null : { at, why: nameIdOf(s, "cleared") };
}

const nameIdOf = (s: State, name: string) => s.names.get(name) ?? -1;
/** The kv_events rowid the in-memory index has applied (at least the saved "kv" cursor). */
export function kvApplied(db: Db): number {
  return state(db).kvApplied;
}

/** Blocks changed in memory and not yet written. */
export function dirtyBlocks(db: Db): number {
  return state(db).dirty.size;
}

/** Apply KV edits to the in-memory index; idempotent per event, so re-applying after a crash is safe. */
export class IndexWriter {
  private s: State;
  constructor(private db: Db) {
    this.s = state(db);
  }

  stored(hash: bigint, w: number, ts: number): void {
    const list = this.list(hash);
    if (list.some((v) => v.w === w && v.storedAt === ts)) return;
    list.push({ w, storedAt: ts, removedAt: null, why: 0 });
    if (list.length > MAX_INTERVALS) {
      const i = list.findIndex((v) => v.removedAt !== null);
      list.splice(i < 0 ? 0 : i, 1);
    }
  }

  /** Close the latest interval of worker w that is open and stored at or before ts (as the old row-per-interval UPDATE did). */
  removed(hash: bigint, w: number, ts: number, why: number): void {
    const list = this.list(hash);
    let best: Interval | null = null;
    for (const v of list) {
      if (v.w !== w) continue;
      if (v.removedAt === ts) return;
      if (v.storedAt <= ts && endOf(this.s, v) === null && (!best || v.storedAt > best.storedAt)) best = v;
    }
    if (best) {
      best.removedAt = ts;
      best.why = why;
    }
  }

  /** Every interval of worker w open now and stored at or before ts ends at ts with reason `cleared` (applied on read). */
  cleared(w: number, ts: number): void {
    nameId(this.db, "cleared");
    const at = this.s.clears.get(w) ?? [];
    if (at.includes(ts)) return;
    this.db.$client.prepare("INSERT INTO attr_clears (worker, at) VALUES (?, ?)").run(w, ts);
    this.s.clears.set(
      w,
      [...at, ts].sort((a, b) => a - b),
    );
  }

  /** Mark events up to kv_events rowid `rid` as applied. */
  applied(rid: number): void {
    this.s.kvApplied = Math.max(this.s.kvApplied, rid);
  }

  private list(hash: bigint): Interval[] {
    const l = intervalsOf(this.db, hash);
    this.s.dirty.add(hash);
    return l;
  }
}

/**
 * Write up to `limit` changed blocks (call inside a transaction); when none is left afterwards, the applied KV cursor
 * is saved with them. Returns how many blocks are still waiting.
 */
export function flushIndex(db: Db, limit: number): number {
  const s = state(db);
  if (s.flushOrder.length === 0) s.flushOrder = [...s.dirty].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let n = 0;
  while (n < limit && s.flushOrder.length > 0) {
    const hash = s.flushOrder.pop()!;
    if (!s.dirty.has(hash)) continue;
    n++;
    const list = s.cache.get(hash) ?? [];
    if (list.length) s.put.run(hash, encodeIntervals(list));
    else s.del.run(hash);
    s.dirty.delete(hash);
  }
  if (s.flushOrder.length === 0 && s.dirty.size > 0)
    s.flushOrder = [...s.dirty].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (s.dirty.size === 0) {
    db.$client
      .prepare(
        "INSERT INTO attr_state (key, value) VALUES ('kv', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      )
      .run(s.kvApplied);
    trimCache(s);
  }
  return s.dirty.size;
}

/** What the index knew about one block at time t, for a turn on `workerId` (see BlockFacts). */
export function blockFactsAt(
  db: Db,
  hash: bigint,
  t: number,
  workerId: string | null,
  seenBefore: boolean,
): BlockFacts {
  const s = state(db);
  const chosen = workerId === null ? -2 : nameId(db, workerId, false);
  const residentOn: string[] = [];
  let rw = -1;
  let rat = 0;
  let rwhy = 0;
  for (const v of intervalsOf(db, hash)) {
    let endAt = v.removedAt;
    let why = v.why;
    if (endAt === null && s.clears.size > 0) {
      const e = endOf(s, v);
      if (e) ({ at: endAt, why } = e);
    }
    if (v.storedAt <= t && (endAt === null || endAt > t)) residentOn.push(s.byId[v.w]!);
    else if (endAt !== null && endAt <= t) {
      const mine = Number(v.w === chosen) - Number(rw !== -1 && rw === chosen);
      if (rw === -1 || mine > 0 || (mine === 0 && endAt > rat)) {
        rw = v.w;
        rat = endAt;
        rwhy = why;
      }
    }
  }
  const lastRemoval = rw === -1 ? null : { reason: s.byId[rwhy] ?? "unknown", at: rat, workerId: s.byId[rw]! };
  return { residentOn, seenBefore, lastRemoval, localSeenBefore: null };
}

/**
 * Drop from up to `limit` blocks after `afterHash` the intervals that ended before cutoff (Unix ms); a block left
 * without intervals is deleted. Returns the last hash visited (null when the scan is complete) and rows changed.
 */
export function pruneBlocks(
  db: Db,
  cutoff: number,
  afterHash: bigint | null,
  limit: number,
): { next: bigint | null; changed: number } {
  const s = state(db);
  const rows = db.$client
    .prepare("SELECT hash, intervals FROM attr_blocks WHERE hash > ? ORDER BY hash LIMIT ?")
    .safeIntegers()
    .all(afterHash ?? -(2n ** 63n), limit) as { hash: bigint; intervals: Buffer }[];
  let changed = 0;
  for (const r of rows) {
    const list = s.cache.get(r.hash) ?? decodeIntervals(r.intervals);
    const kept = list.filter((v) => {
      const end = endOf(s, v);
      return end === null || end.at >= cutoff;
    });
    if (kept.length === list.length) continue;
    changed++;
    s.dirty.delete(r.hash);
    if (kept.length) {
      s.put.run(r.hash, encodeIntervals(kept));
      if (s.cache.has(r.hash)) s.cache.set(r.hash, kept);
    } else {
      s.del.run(r.hash);
      s.cache.delete(r.hash);
    }
  }
  return { next: rows.length < limit ? null : rows[rows.length - 1]!.hash, changed };
}
