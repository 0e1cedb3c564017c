import type Database from "better-sqlite3";
import type { Db } from "../client";

// First-seen marks of the attribution job: attr_blocks.first_at (a sequence hash first cacheable) and attr_local (a
// block's content first in a prompt), both keyed by random 64-bit hashes. Marks are kept in memory and written in key order
// (flushSeen), a narrow range of pages per short transaction, instead of one random insert per new block in every
// request transaction. The requests cursor is saved by the flush that writes the marks of the requests before it, so
// after a crash those requests are judged again: their causes rows are already there (kept), their marks come back.

const SEEN_MAX = 500_000;
const CHUNK = 64;

type State = {
  /** first_at of recently read or written sequence hashes (a read-through cache). */
  seen: Map<bigint, number>;
  /** The cache's keys in insertion order from `head` on (the oldest is dropped first, in O(1)). */
  fifo: bigint[];
  head: number;
  /** Marks not written yet (earliest time per hash). */
  seenDirty: Map<bigint, number>;
  localDirty: Map<bigint, number>;
  /** Dirty keys in key order, written from the end (sorted once per round of flushes). */
  order: { seen: bigint[]; local: bigint[] };
  seenGet: Database.Statement;
  seenPut: Database.Statement;
  localPut: Database.Statement;
  localIn: Database.Statement;
  /** requests rowid judged in memory; saved as the "requests" cursor by the flush that writes its marks. */
  requestsDone: number;
};
const states = new WeakMap<Database.Database, State>();

function state(db: Db): State {
  const c = db.$client;
  let s = states.get(c);
  if (s) return s;
  s = {
    seen: new Map(),
    fifo: [],
    head: 0,
    seenDirty: new Map(),
    localDirty: new Map(),
    order: { seen: [], local: [] },
    seenGet: c.prepare("SELECT first_at FROM attr_blocks WHERE hash = ? AND first_at IS NOT NULL").pluck(),
    seenPut: c.prepare(
      "INSERT INTO attr_blocks (hash, first_at) VALUES (?, ?) ON CONFLICT(hash) DO UPDATE SET first_at = min(coalesce(first_at, excluded.first_at), excluded.first_at)",
    ),
    localPut: c.prepare(
      "INSERT INTO attr_local (hash, first_at) VALUES (?, ?) ON CONFLICT(hash) DO UPDATE SET first_at = min(first_at, excluded.first_at)",
    ),
    localIn: c
      .prepare(`SELECT hash FROM attr_local WHERE hash IN (${Array(CHUNK).fill("?").join(",")}) AND first_at < ?`)
      .pluck()
      .safeIntegers(),
    requestsDone:
      (c.prepare("SELECT value FROM attr_state WHERE key = 'requests'").pluck().get() as number | undefined) ?? 0,
  };
  states.set(c, s);
  return s;
}

/** Forget the marks not written and the cursor run ahead (after a rolled-back transaction). */
export function resetSeen(db: Db): void {
  states.delete(db.$client);
}

const earliest = (m: Map<bigint, number>, k: bigint, at: number) => {
  const had = m.get(k);
  if (had === undefined || at < had) m.set(k, at);
};

/** When a sequence hash was first cacheable (attr_blocks and marks not yet written), or undefined when never. */
export function seenFirstAt(db: Db, hash: bigint): number | undefined {
  const s = state(db);
  const hit = s.seen.get(hash);
  if (hit !== undefined) return hit;
  const stored = s.seenGet.get(hash) as number | undefined;
  const dirty = s.seenDirty.get(hash);
  const at = stored === undefined ? dirty : dirty === undefined ? stored : Math.min(stored, dirty);
  if (at !== undefined) rememberSeen(s, hash, at);
  return at;
}

/** Record that a sequence hash was cacheable at `at` (keeps the earliest time). */
export function markSeen(db: Db, hash: bigint, at: number): void {
  const s = state(db);
  earliest(s.seenDirty, hash, at);
  const had = s.seen.get(hash);
  if (had === undefined || at < had) rememberSeen(s, hash, had === undefined ? at : Math.min(had, at));
}

function rememberSeen(s: State, hash: bigint, at: number) {
  if (!s.seen.has(hash)) {
    if (s.seen.size >= SEEN_MAX) s.seen.delete(s.fifo[s.head++]!);
    s.fifo.push(hash);
    if (s.head > SEEN_MAX) {
      s.fifo = s.fifo.slice(s.head);
      s.head = 0;
    }
  }
  s.seen.set(hash, at);
}

/** Which of `keys` (local hashes) appeared in a prompt before t: attr_local, one IN query per 64 keys, and marks not written. */
export function localSeenBefore(db: Db, keys: readonly bigint[], t: number): Set<bigint> {
  const s = state(db);
  const out = new Set<bigint>();
  for (let i = 0; i < keys.length; i += CHUNK) {
    const chunk = keys.slice(i, i + CHUNK);
    while (chunk.length < CHUNK) chunk.push(chunk[0]!);
    for (const h of s.localIn.all(...chunk, t) as bigint[]) out.add(h);
  }
  if (s.localDirty.size > 0)
    for (const k of keys) {
      const at = s.localDirty.get(k);
      if (at !== undefined && at < t) out.add(k);
    }
  return out;
}

/** Record that a local hash appeared in a prompt at `at` (keeps the earliest time). */
export function markLocal(db: Db, hash: bigint, at: number): void {
  earliest(state(db).localDirty, hash, at);
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
  return s.seenDirty.size + s.localDirty.size;
}

const byKey = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** Write up to `n` marks of one dirty map, highest keys first; returns how many were written. */
function writeSome(
  m: Map<bigint, number>,
  o: { seen: bigint[]; local: bigint[] },
  which: "seen" | "local",
  put: Database.Statement,
  n: number,
): number {
  if (o[which].length === 0) o[which] = [...m.keys()].sort(byKey);
  const order = o[which];
  let done = 0;
  while (done < n && order.length > 0) {
    const k = order.pop()!;
    const at = m.get(k);
    if (at === undefined) continue;
    put.run(k, at);
    m.delete(k);
    done++;
  }
  return done;
}

/**
 * Write up to `limit` marks (call inside a transaction); when none is left afterwards, the requests cursor is saved
 * with them. Returns how many are still waiting.
 */
export function flushSeen(db: Db, limit: number): number {
  const s = state(db);
  let left = limit;
  if (s.seenDirty.size > 0) left -= writeSome(s.seenDirty, s.order, "seen", s.seenPut, left);
  if (left > 0 && s.localDirty.size > 0) writeSome(s.localDirty, s.order, "local", s.localPut, left);
  if (s.seenDirty.size + s.localDirty.size === 0)
    db.$client
      .prepare(
        "INSERT INTO attr_state (key, value) VALUES ('requests', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      )
      .run(s.requestsDone);
  return s.seenDirty.size + s.localDirty.size;
}

/** Drop the cached first-seen marks (after rows were deleted underneath them; everything was flushed before). */
export function forgetSeen(db: Db): void {
  const s = state(db);
  s.seen.clear();
  s.fifo = [];
  s.head = 0;
}
