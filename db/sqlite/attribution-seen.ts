import type Database from "better-sqlite3";
import type { Db } from "./client";
import { BlockTable, KeyFilter } from "./attribution-block-table";
import { attrBlocks, attrLocal, FIRST_AT, reloadPacked } from "./attribution-packed";
import type { PackedKeys } from "./packed-keys";
import { ATTR_SEEN_SLOTS } from "../../lib/memory-bounds";

export { flushSeen, seenMarkTaker, takeSeenMark } from "./attribution-seen-flush";

// First-seen marks of the attribution job: attr_blocks' first_at (a sequence hash first cacheable) and attr_local (a
// block's content first in a prompt), both keyed by random 64-bit hashes and packed (packed-keys.ts). Marks are kept
// in memory and written in key order (flushSeen), a bucket of keys per write and a narrow range of pages per short
// transaction, instead of one random insert per new block in every request transaction. The requests cursor is saved
// by the flush that writes the marks of the requests before it, so after a crash those requests are judged again:
// their causes rows are already there (kept), their marks come back. Times on disk are ms after an epoch kept in
// attr_state ('epoch', the first mark's time, saved with the first marks written), 5 bytes each (±17 years around
// it). Marks exist on disk only with an epoch saved; in memory, and to callers, times are Unix ms.

/** first_at of a cached sequence hash not on disk (the hash was looked up and had no mark). */
const NONE = -1;

export type Order = { hi: Int32Array; lo: Int32Array; left: number };

export type State = {
  /** first_at (or NONE) of recently read or written sequence hashes, in `cur` (a read-through cache of ATTR_SEEN_SLOTS slots, least recently used dropped first). */
  seen: BlockTable;
  /** Marks not written yet: earliest time per hash in `cur` of the dirty entries (clean entries were written). */
  seenDirty: BlockTable;
  localDirty: BlockTable;
  /** Every local hash that may be in attr_local or marked (a superset): a hash outside it is not looked up. */
  localKeys: KeyFilter;
  /** Dirty keys in key order, written from the end (sorted once per round of flushes). */
  order: { seen: Order; local: Order };
  /** attr_blocks (the sequence hashes' marks beside their lists) and attr_local, by a key's halves (hi, lo). */
  blocks: PackedKeys;
  local: PackedKeys;
  /** requests rowid judged in memory; saved as the "requests" cursor by the flush that writes its marks. */
  requestsDone: number;
  /** Unix ms that times on disk are relative to (null: none chosen yet, nothing on disk); saved: it is in attr_state. */
  epoch: number | null;
  epochSaved: boolean;
};
const states = new WeakMap<Database.Database, State>();

/** This connection's marks state (attribution-seen-flush.ts writes them). */
export function state(db: Db): State {
  const c = db.$client;
  let s = states.get(c);
  if (s) return s;
  const epoch = c.prepare("SELECT value FROM attr_state WHERE key = 'epoch'").pluck().get() as number | undefined;
  s = {
    epoch: epoch ?? null,
    epochSaved: epoch !== undefined,
    seen: new BlockTable(ATTR_SEEN_SLOTS, true),
    seenDirty: new BlockTable(),
    localDirty: new BlockTable(),
    localKeys: localFilters.get(c) ?? localFilterOfDisk(c),
    order: { seen: noOrder(), local: noOrder() },
    blocks: attrBlocks(c),
    local: attrLocal(c),
    requestsDone:
      (c.prepare("SELECT value FROM attr_state WHERE key = 'requests'").pluck().get() as number | undefined) ?? 0,
  };
  states.set(c, s);
  return s;
}

/**
 * Per connection, kept across resetSeen: marks of a rolled-back transaction leave it a superset, so a transaction that
 * failed (e.g. busy while ingest held the lock) does not cost a scan of attr_local.
 */
const localFilters = new WeakMap<Database.Database, KeyFilter>();

/** A filter over the hashes attr_local holds (read once per connection, and again when it fills up). */
export function localFilterOfDisk(c: Database.Database): KeyFilter {
  const p = attrLocal(c);
  const f = new KeyFilter(Math.max(2_000_000, p.size() * 2));
  p.scan((hi, lo) => f.add(hi, lo));
  localFilters.set(c, f);
  return f;
}

/** Forget the marks not written and the cursor run ahead (after a rolled-back transaction). */
export function resetSeen(db: Db): void {
  states.delete(db.$client);
  reloadPacked(db.$client);
}

export const noOrder = (): Order => ({ hi: new Int32Array(0), lo: new Int32Array(0), left: 0 });

/** Keep the earliest pending time of a key (dirty until written). */
function earliest(t: BlockTable, hi: number, lo: number, at: number) {
  let i = t.probe(hi, lo);
  if (i < 0) i = t.addAt(-1 - i, hi, lo, at);
  else if (t.flag(i) === 1 && t.cur(i) <= at) return;
  t.set(i, at);
}

/** The pending (not yet written) time of a key, or undefined. */
function pending(t: BlockTable, hi: number, lo: number): number | undefined {
  if (t.dirtyCount === 0) return undefined;
  const i = t.find(hi, lo);
  return i >= 0 && t.flag(i) === 1 ? t.cur(i) : undefined;
}

/** When a sequence hash (as int32 halves) was first cacheable (attr_blocks and marks not yet written), or undefined when never. */
export function seenFirstAt(db: Db, hi: number, lo: number): number | undefined {
  return firstAt(state(db), hi, lo);
}

/**
 * For blocks [0, n) of halves `hi`, `lo` (int32 arrays), whether each sequence hash was cacheable before t (1) or not
 * (0): seenFirstAt(…) < t, the state looked up once.
 */
export function seenBefore(db: Db, hi: Int32Array, lo: Int32Array, n: number, t: number): Uint8Array {
  const s = state(db);
  const out = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    const at = firstAt(s, hi[k]!, lo[k]!);
    if (at !== undefined && at < t) out[k] = 1;
  }
  return out;
}

function firstAt(s: State, hi: number, lo: number): number | undefined {
  const i = s.seen.find(hi, lo);
  if (i >= 0) {
    s.seen.touch(i);
    const at = s.seen.cur(i);
    return at === NONE ? undefined : at;
  }
  const rel = s.blocks.get(hi, lo)?.[FIRST_AT] ?? null;
  const stored = rel === null ? undefined : rel + (s.epoch ?? 0);
  const dirty = pending(s.seenDirty, hi, lo);
  const at = stored === undefined ? dirty : dirty === undefined ? stored : Math.min(stored, dirty);
  rememberSeen(s, hi, lo, at ?? NONE);
  return at;
}

/** Record that a sequence hash was cacheable at `at` (keeps the earliest time). */
export function markSeen(db: Db, hi: number, lo: number, at: number): void {
  mark(state(db), hi, lo, at);
}

/** markSeen for blocks [from, to) of halves `hi`, `lo` (int32 arrays), all at `at`. */
export function markSeenAll(db: Db, hi: Int32Array, lo: Int32Array, from: number, to: number, at: number): void {
  const s = state(db);
  for (let k = from; k < to; k++) mark(s, hi[k]!, lo[k]!, at);
}

function mark(s: State, hi: number, lo: number, at: number): void {
  if (s.epoch === null) s.epoch = at;
  earliest(s.seenDirty, hi, lo, at);
  const i = s.seen.find(hi, lo);
  if (i < 0) rememberSeen(s, hi, lo, at);
  else if (s.seen.cur(i) === NONE || at < s.seen.cur(i)) s.seen.setCur(i, at);
}

/** Cache a mark (the table is bounded: past its size the least recently used marks are dropped). */
function rememberSeen(s: State, hi: number, lo: number, at: number) {
  s.seen.add(hi, lo, at);
}

/**
 * Which of the local hashes (int32 halves `hi[k]`, `lo[k]`) appeared in a prompt before t, as their indexes: attr_local
 * (the buckets of those it may hold) and marks not written.
 */
export function localSeenBefore(db: Db, hi: Int32Array, lo: Int32Array, t: number): Set<number> {
  const s = state(db);
  const out = new Set<number>();
  const maybe: number[] = [];
  // Most of a turn's new blocks were never in a prompt: no read for what attr_local cannot hold.
  for (let k = 0; k < hi.length; k++) if (s.localKeys.mightHold(hi[k]!, lo[k]!)) maybe.push(k);
  const before = t - (s.epoch ?? 0);
  s.local.lookup(hi, lo, maybe, (k, b, at) => {
    if (s.local.value(b, at, 0)! < before) out.add(k);
  });
  if (s.localDirty.dirtyCount > 0)
    for (let k = 0; k < hi.length; k++) {
      const at = pending(s.localDirty, hi[k]!, lo[k]!);
      if (at !== undefined && at < t) out.add(k);
    }
  return out;
}

/** Record that a local hash (int32 halves) appeared in a prompt at `at` (keeps the earliest time). */
export function markLocal(db: Db, hi: number, lo: number, at: number): void {
  const s = state(db);
  if (s.epoch === null) s.epoch = at;
  earliest(s.localDirty, hi, lo, at);
  s.localKeys.add(hi, lo);
}

/** markLocal for local hashes [0, n) of halves `hi`, `lo` (int32 arrays) at `at`, but those whose index is in `skip`. */
export function markLocalAll(
  db: Db,
  hi: Int32Array,
  lo: Int32Array,
  n: number,
  at: number,
  skip: ReadonlySet<number>,
): void {
  const s = state(db);
  for (let k = 0; k < n; k++) {
    if (skip.has(k)) continue;
    if (s.epoch === null) s.epoch = at;
    earliest(s.localDirty, hi[k]!, lo[k]!, at);
    s.localKeys.add(hi[k]!, lo[k]!);
  }
}

/** The Unix ms that first-seen times on disk (attr_blocks.first_at, attr_local.first_at) are relative to. */
export function seenEpoch(db: Db): number {
  return state(db).epoch ?? 0;
}

/** The requests rowid judged so far (at least the saved cursor). */
export function requestsDone(db: Db): number {
  return state(db).requestsDone;
}

/** Mark requests up to rowid `rid` as judged (saved with the marks by flushSeen). */
export function requestsJudged(db: Db, rid: number): void {
  const s = state(db);
  s.requestsDone = Math.max(s.requestsDone, rid);
}

/** Marks not written yet. */
export function dirtySeen(db: Db): number {
  const s = state(db);
  return s.seenDirty.dirtyCount + s.localDirty.dirtyCount;
}

/** Local-hash marks not written yet. */
export function dirtyLocal(db: Db): number {
  return state(db).localDirty.dirtyCount;
}

/** Drop the cached first-seen marks (after rows were deleted underneath them; everything was flushed before). */
export function forgetSeen(db: Db): void {
  const s = state(db);
  s.seen.clear();
}
