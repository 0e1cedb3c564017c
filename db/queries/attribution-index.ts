import type Database from "better-sqlite3";
import type { Db } from "../client";
import { decodeIntervals, encodeIntervals, withRemoved, withStored, type Interval } from "./attribution-intervals";
import { BlockTable, halvesOf, KeyFilter, keyOf } from "./attribution-block-table";
import { resetSeen } from "./attribution-seen";

export { decodeIntervals, encodeIntervals, MAX_INTERVALS, type Interval } from "./attribution-intervals";

// The attribution job's residency index. Every block (its i64 sequence hash) has a list of stored→removed intervals on
// any worker (~8 bytes each as varints); worker ids and removal reasons are small integers (attr_names). Blocks stored
// and removed by the same events have the same list, so lists are shared: attr_blocks maps a block to a list id and
// attr_lists holds each list once with the number of blocks that point to it (attr_blocks.first_at is the block's
// first-seen mark, attribution-seen.ts). A list is never changed in place: an
// event maps each distinct list among its blocks to a new one (once per event, however many blocks share it).
// A `kv.cleared` is kept once per worker (attr_clears) and closes, on read, every interval of that worker open when it
// was applied. The job applies KV events in memory and writes each changed block once per flush (flushIndex), in short
// transactions; applying an event twice changes nothing, so a flush cut short is repaired by re-applying from the
// saved cursor.

const BLOCK_CACHE_MAX = 1_000_000;
/** Blocks of one KV event not in memory are read from attr_blocks this many per query. */
const LOOKUP_CHUNK = 64;
const LIST_CACHE_MAX = 200_000;
const EMPTY: readonly Interval[] = [];

/** Where a block was resident at a time t, and its latest removal before t (the chosen worker's when it had one). */
export type Residency = {
  residentOn: readonly string[];
  lastRemoval: { reason: string; at: number; workerId: string } | null;
};

type State = {
  blockGet: Database.Statement;
  blocksIn: Database.Statement;
  blockPut: Database.Statement;
  blockDel: Database.Statement;
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
  nextList: number;
  /** Dirty blocks in key order, written from the end: each short transaction touches one narrow range of pages. */
  flushOrder: { hi: Int32Array; lo: Int32Array; left: number };
  /** kv_events rowid applied in memory; saved as the "kv" cursor by the flush that writes its effects. */
  kvApplied: number;
  /** Facts per list for the last (time, worker) asked: the blocks of one turn mostly share a few lists. */
  facts: { t: number; chosen: number; byList: Map<number, Residency> };
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
    blockGet: c.prepare("SELECT list FROM attr_blocks WHERE hash = ?").pluck(),
    blocksIn: c
      .prepare(
        `SELECT hash, list FROM attr_blocks WHERE hash IN (${Array(LOOKUP_CHUNK).fill("?").join(",")}) AND list <> 0`,
      )
      .raw()
      .safeIntegers(),
    blockPut: c.prepare(
      "INSERT INTO attr_blocks (hash, list) VALUES (?, ?) ON CONFLICT(hash) DO UPDATE SET list = excluded.list",
    ),
    blockDel: c.prepare("UPDATE attr_blocks SET list = 0 WHERE hash = ?"),
    listGet: c.prepare("SELECT intervals FROM attr_lists WHERE id = ?").pluck(),
    listAdd: c.prepare("UPDATE attr_lists SET refs = refs + ? WHERE id = ?"),
    listNew: c.prepare("INSERT INTO attr_lists (id, refs, intervals) VALUES (?, ?, ?)"),
    listSub: c.prepare("UPDATE attr_lists SET refs = refs - ? WHERE id = ?"),
    listDrop: c.prepare("DELETE FROM attr_lists WHERE id = ? AND refs <= 0"),
    names,
    byId,
    clears,
    blocks: new BlockTable(),
    onDisk: filterOfDisk(c),
    lists: new Map([[0, EMPTY]]),
    nextList: ((c.prepare("SELECT max(id) FROM attr_lists").pluck().get() as number | null) ?? 0) + 1,
    flushOrder: { hi: new Int32Array(0), lo: new Int32Array(0), left: 0 },
    kvApplied: (c.prepare("SELECT value FROM attr_state WHERE key = 'kv'").pluck().get() as number | undefined) ?? 0,
    facts: { t: NaN, chosen: NaN, byList: new Map() },
  };
  // A database from before this index (a kv cursor but no names yet): rebuild the index from the retained KV events.
  if (names.size === 0) s.kvApplied = 0;
  states.set(c, s);
  return s;
}

/** A filter over the blocks attr_blocks gives a list (read once per connection, and again when it fills up). */
function filterOfDisk(c: Database.Database): KeyFilter {
  const n = c.prepare("SELECT count(*) FROM attr_blocks WHERE list <> 0").pluck().get() as number;
  const f = new KeyFilter(Math.max(2_000_000, n * 2));
  const buf = Buffer.alloc(8);
  for (const [h] of c
    .prepare("SELECT hash FROM attr_blocks WHERE list <> 0")
    .raw()
    .safeIntegers()
    .iterate() as Iterable<[bigint]>) {
    buf.writeBigInt64BE(h);
    f.add(buf.readInt32BE(0), buf.readInt32BE(4));
  }
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

/** Read into the table, LOOKUP_CHUNK per query, the blocks of a list of 8-byte hashes it does not hold yet. */
function loadMissing(s: State, hashes: Buffer): void {
  const miss: bigint[] = [];
  for (let o = 0; o + 8 <= hashes.length; o += 8) {
    const hi = hashes.readInt32BE(o);
    const lo = hashes.readInt32BE(o + 4);
    if (s.blocks.find(hi, lo) >= 0) continue;
    if (s.onDisk.mightHold(hi, lo)) miss.push(hashes.readBigInt64BE(o));
    else s.blocks.add(hi, lo, 0);
  }
  for (let k = 0; k < miss.length; k += LOOKUP_CHUNK) {
    const chunk = miss.slice(k, k + LOOKUP_CHUNK);
    const found = new Map<bigint, number>();
    while (chunk.length < LOOKUP_CHUNK) chunk.push(chunk[0]!);
    for (const [h, list] of s.blocksIn.all(...chunk) as [bigint, bigint][]) found.set(h, Number(list));
    for (let j = k; j < Math.min(miss.length, k + LOOKUP_CHUNK); j++) {
      const [hi, lo] = halvesOf(miss[j]!);
      if (s.blocks.find(hi, lo) < 0) s.blocks.add(hi, lo, found.get(miss[j]!) ?? 0);
    }
  }
}

/** The table slot of a block (read from attr_blocks on first use). */
function slotOf(s: State, hi: number, lo: number): number {
  const i = s.blocks.find(hi, lo);
  if (i >= 0) return i;
  if (!s.onDisk.mightHold(hi, lo)) return s.blocks.add(hi, lo, 0);
  return s.blocks.add(hi, lo, (s.blockGet.get(keyOf(hi, lo)) as number | undefined) ?? 0);
}

function curOf(s: State, hash: bigint): number {
  const [hi, lo] = halvesOf(hash);
  return s.blocks.cur[slotOf(s, hi, lo)]!;
}

function listOf(s: State, id: number): readonly Interval[] {
  let l = s.lists.get(id);
  if (!l) {
    const blob = s.listGet.get(id) as Buffer | undefined;
    l = blob ? decodeIntervals(blob) : EMPTY;
    s.lists.set(id, l);
  }
  return l;
}

/** Read one block's intervals (cached). */
export function intervalsOf(db: Db, hash: bigint): readonly Interval[] {
  const s = state(db);
  return listOf(s, curOf(s, hash));
}

/** Drop clean cached blocks (oldest first) and lists down to their bounds; only once every change is written. */
function trimCache(s: State) {
  s.blocks.trim(BLOCK_CACHE_MAX);
  if (s.lists.size > LIST_CACHE_MAX) s.lists = new Map([[0, EMPTY]]);
  s.facts.byList.clear();
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
  return state(db).blocks.dirtyCount;
}

/** Apply KV edits to the in-memory index; idempotent per event, so re-applying after a crash is safe. */
export class IndexWriter {
  private s: State;
  /** Old list id → new list id for the current edit (one edit: one op, worker, time and reason). */
  private memo = new Map<number, number>();
  private edit = { op: 0, w: -1, ts: NaN, why: -1 };
  constructor(private db: Db) {
    this.s = state(db);
  }

  stored(hash: bigint, w: number, ts: number): void {
    this.begin(1, w, ts, 0);
    const [hi, lo] = halvesOf(hash);
    this.apply(hi, lo, (l) => withStored(l, w, ts));
  }

  /** stored() for every block of a list of 8-byte big-endian hashes (one event's), in order. */
  storedList(hashes: Buffer, w: number, ts: number): void {
    this.begin(1, w, ts, 0);
    loadMissing(this.s, hashes);
    const f = (l: readonly Interval[]) => withStored(l, w, ts);
    for (let o = 0; o + 8 <= hashes.length; o += 8) this.apply(hashes.readInt32BE(o), hashes.readInt32BE(o + 4), f);
  }

  /** removed() for every block of a list of 8-byte big-endian hashes (one event's), in order. */
  removedList(hashes: Buffer, w: number, ts: number, why: number): void {
    this.begin(2, w, ts, why);
    loadMissing(this.s, hashes);
    const f = (l: readonly Interval[]) => withRemoved(l, w, ts, why, (v) => endOf(this.s, v) === null);
    for (let o = 0; o + 8 <= hashes.length; o += 8) this.apply(hashes.readInt32BE(o), hashes.readInt32BE(o + 4), f);
  }

  /** Close the latest interval of worker w that is open and stored at or before ts (as the old row-per-interval UPDATE did). */
  removed(hash: bigint, w: number, ts: number, why: number): void {
    this.begin(2, w, ts, why);
    const [hi, lo] = halvesOf(hash);
    this.apply(hi, lo, (l) => withRemoved(l, w, ts, why, (v) => endOf(this.s, v) === null));
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
    this.edit.op = 0;
    this.memo.clear();
    this.s.facts.byList.clear();
  }

  /** Mark events up to kv_events rowid `rid` as applied. */
  applied(rid: number): void {
    this.s.kvApplied = Math.max(this.s.kvApplied, rid);
  }

  /** Start an edit; the memo of the previous one is kept when it is the same edit. */
  private begin(op: number, w: number, ts: number, why: number): void {
    const e = this.edit;
    if (e.op === op && e.w === w && e.ts === ts && e.why === why) return;
    e.op = op;
    e.w = w;
    e.ts = ts;
    e.why = why;
    this.memo.clear();
  }

  private apply(hi: number, lo: number, f: (l: readonly Interval[]) => readonly Interval[]): void {
    const s = this.s;
    const i = slotOf(s, hi, lo);
    const cur = s.blocks.cur[i]!;
    let to = this.memo.get(cur);
    if (to === undefined) {
      const from = listOf(s, cur);
      const next = f(from);
      to = next === from ? cur : s.nextList++;
      if (to !== cur) s.lists.set(to, next);
      this.memo.set(cur, to);
    }
    if (to === cur) return;
    s.blocks.set(i, to);
  }
}

/**
 * Write up to `limit` changed blocks (call inside a transaction) with the lists they now point to and the reference
 * counts of the lists they left (a list no block points to is deleted); when none is left afterwards, the applied KV
 * cursor is saved with them. Returns how many blocks are still waiting.
 */
export function flushIndex(db: Db, limit: number): number {
  const s = state(db);
  const t = s.blocks;
  let order = s.flushOrder;
  if (order.left === 0 && t.dirtyCount > 0) order = s.flushOrder = { ...t.takeDirtySorted(), left: 0 };
  if (order.left === 0) order.left = order.hi.length;
  const delta = new Map<number, number>();
  let n = 0;
  while (n < limit && order.left > 0) {
    order.left--;
    const hi = order.hi[order.left]!;
    const lo = order.lo[order.left]!;
    const i = t.find(hi, lo);
    if (i < 0 || t.dirtyFlag[i] === 0) continue;
    n++;
    const cur = t.cur[i]!;
    const disk = t.disk[i]!;
    t.clean(i);
    if (cur === disk) continue;
    const hash = keyOf(hi, lo);
    if (cur !== 0) {
      s.blockPut.run(hash, cur);
      s.onDisk.add(hi, lo);
      delta.set(cur, (delta.get(cur) ?? 0) + 1);
    } else s.blockDel.run(hash);
    if (disk !== 0) delta.set(disk, (delta.get(disk) ?? 0) - 1);
  }
  for (const [id, d] of delta) {
    if (d > 0) {
      if (s.listAdd.run(d, id).changes === 0) s.listNew.run(id, d, encodeIntervals(s.lists.get(id)!));
    } else if (d < 0) {
      s.listSub.run(-d, id);
      s.listDrop.run(id);
    }
  }
  if (order.left === 0 && t.dirtyCount > 0) s.flushOrder = { ...t.takeDirtySorted(), left: 0 };
  if (t.dirtyCount === 0) {
    s.flushOrder = { hi: new Int32Array(0), lo: new Int32Array(0), left: 0 };
    db.$client
      .prepare(
        "INSERT INTO attr_state (key, value) VALUES ('kv', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      )
      .run(s.kvApplied);
    trimCache(s);
    if (s.onDisk.full()) s.onDisk = filterOfDisk(db.$client);
  }
  return t.dirtyCount;
}

/** What the index knew about one block (its hash as int32 halves) at time t, for a turn on `workerId` (null: no worker). */
export function residencyAt(db: Db, hi: number, lo: number, t: number, workerId: string | null): Residency {
  const s = state(db);
  const chosen = workerId === null ? -2 : nameId(db, workerId, false);
  const memo = s.facts;
  if (memo.t !== t || memo.chosen !== chosen) {
    memo.t = t;
    memo.chosen = chosen;
    memo.byList.clear();
  }
  const id = s.blocks.cur[slotOf(s, hi, lo)]!;
  let f = memo.byList.get(id);
  if (!f) memo.byList.set(id, (f = factsOf(s, listOf(s, id), t, chosen)));
  return f;
}

function factsOf(s: State, list: readonly Interval[], t: number, chosen: number): Residency {
  const residentOn: string[] = [];
  let rw = -1;
  let rat = 0;
  let rwhy = 0;
  for (const v of list) {
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
  return { residentOn, lastRemoval };
}

/**
 * Drop from up to `limit` lists after id `afterId` the intervals that ended before cutoff (Unix ms), in place (every
 * block sharing a list shares the result). Returns the last id visited (null when the scan is complete) and lists
 * changed. Call with everything flushed; the caches are dropped afterwards (pruneDone).
 */
export function pruneLists(
  db: Db,
  cutoff: number,
  afterId: number,
  limit: number,
): { next: number | null; changed: number } {
  const s = state(db);
  const rows = db.$client
    .prepare("SELECT id, intervals FROM attr_lists WHERE id > ? ORDER BY id LIMIT ?")
    .all(afterId, limit) as { id: number; intervals: Buffer }[];
  const put = db.$client.prepare("UPDATE attr_lists SET intervals = ? WHERE id = ?");
  let changed = 0;
  for (const r of rows) {
    const list = decodeIntervals(r.intervals);
    const kept = list.filter((v) => {
      const end = endOf(s, v);
      return end === null || end.at >= cutoff;
    });
    if (kept.length === list.length) continue;
    changed++;
    put.run(encodeIntervals(kept), r.id);
  }
  return { next: rows.length < limit ? null : rows[rows.length - 1]!.id, changed };
}

/**
 * After a prune: up to `limit` blocks whose list is now empty point to none (the empty lists are deleted once none is
 * left); returns blocks changed.
 */
export function dropEmptyBlocks(db: Db, limit: number): number {
  const c = db.$client;
  const n = c
    .prepare(
      "UPDATE attr_blocks SET list = 0 WHERE rowid IN (SELECT b.hash FROM attr_blocks b JOIN attr_lists l ON l.id = b.list WHERE length(l.intervals) = 0 LIMIT ?)",
    )
    .run(limit).changes;
  if (n < limit) c.prepare("DELETE FROM attr_lists WHERE length(intervals) = 0").run();
  return n;
}

/** Forget cached blocks and lists after a prune rewrote them on disk (everything was flushed before it). */
export function pruneDone(db: Db): void {
  const s = state(db);
  s.blocks.clear();
  s.lists = new Map([[0, EMPTY]]);
  s.facts.byList.clear();
}
