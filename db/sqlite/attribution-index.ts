import type { Db } from "./client";
import {
  encodeIntervals,
  residencyOf,
  withRemoved,
  withStored,
  decodeIntervals,
  type Interval,
} from "./attribution-intervals";
import { halvesOf } from "./attribution-block-table";
import { attrBlocks, FIRST_AT, LIST } from "./attribution-packed";
import {
  cacheList,
  EMPTY,
  endOf,
  listOf,
  slotsOf,
  nameId,
  nameIdOf,
  slotOf,
  state,
  type Residency,
  type State,
} from "./attribution-index-state";

export { decodeIntervals, encodeIntervals, MAX_INTERVALS, type Interval } from "./attribution-intervals";
export { flushIndex } from "./attribution-flush";
export {
  dirtyBlocks,
  intervalsOf,
  kvApplied,
  listCacheFull,
  nameId,
  resetIndexCache,
  type Residency,
} from "./attribution-index-state";

// The attribution job's residency index. Every block (its i64 sequence hash) has a list of stored→removed intervals on
// any worker (~8 bytes each as varints); worker ids and removal reasons are small integers (attr_names). Blocks stored
// and removed by the same events have the same list, so lists are shared: attr_blocks maps a block to a list id and
// attr_lists holds each list once with the number of blocks that point to it (attr_blocks.first_at is the block's
// first-seen mark, attribution-seen.ts). A list is never changed in place: an
// event maps each distinct list among its blocks to a new one (once per event, however many blocks share it).
// A `kv.cleared` is kept once per worker (attr_clears) and closes, on read, every interval of that worker open when it
// was applied. The job applies KV events in memory and writes each changed block once per flush (flushIndex), in short
// transactions (attribution-flush.ts); applying an event twice changes nothing, so a flush cut short is repaired by re-applying from the
// saved cursor.

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
    this.applyAll(slotsOf(this.s, hashes), (l: readonly Interval[]) => withStored(l, w, ts));
  }

  /** removed() for every block of a list of 8-byte big-endian hashes (one event's), in order. */
  removedList(hashes: Buffer, w: number, ts: number, why: number): void {
    this.begin(2, w, ts, why);
    this.applyAll(slotsOf(this.s, hashes), (l) => withRemoved(l, w, ts, why, (v) => endOf(this.s, v) === null));
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
    this.applyAt(slotOf(this.s, hi, lo), f);
  }

  private applyAt(i: number, f: (l: readonly Interval[]) => readonly Interval[]): void {
    const s = this.s;
    const cur = s.blocks.cur(i);
    const to = this.mapped(cur, f);
    if (to === cur) return;
    s.blocks.set(i, to);
  }

  /** applyAt for every slot of one event's blocks; neighbours mostly share a list, so the last mapping is kept at hand. */
  private applyAll(slots: Int32Array, f: (l: readonly Interval[]) => readonly Interval[]): void {
    const t = this.s.blocks;
    let from = -1;
    let to = -1;
    for (let k = 0; k < slots.length; k++) {
      const i = slots[k]!;
      const cur = t.cur(i);
      if (cur !== from) {
        from = cur;
        to = this.mapped(cur, f);
      }
      if (to !== cur) t.set(i, to);
    }
  }

  /** The list a block on list `cur` moves to in this edit (`cur` when the edit does not change it), memoized per edit. */
  private mapped(cur: number, f: (l: readonly Interval[]) => readonly Interval[]): number {
    const s = this.s;
    let to = this.memo.get(cur);
    if (to === undefined) {
      const from = listOf(s, cur);
      const next = f(from);
      to = next === from ? cur : s.nextList++;
      if (to !== cur) cacheList(s, to, next);
      this.memo.set(cur, to);
    }
    return to;
  }
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
  const i = slotOf(s, hi, lo);
  const id = s.blocks.cur(i);
  let f = memo.byList.get(id);
  if (!f) memo.byList.set(id, (f = factsOf(s, listOf(s, id), t, chosen)));
  return f;
}

/**
 * residencyAt for blocks [from, to) of halves `hi`, `lo` (int32 arrays), as out[k - from]: the state and the worker are
 * looked up once, and a run of blocks on the same list shares one object.
 */
export function residenciesAt(
  db: Db,
  hi: Int32Array,
  lo: Int32Array,
  from: number,
  to: number,
  t: number,
  workerId: string | null,
): Residency[] {
  const s = state(db);
  const chosen = workerId === null ? -2 : nameId(db, workerId, false);
  const memo = s.facts;
  if (memo.t !== t || memo.chosen !== chosen) {
    memo.t = t;
    memo.chosen = chosen;
    memo.byList.clear();
  }
  const out = new Array<Residency>(to - from);
  let last = -1;
  let f: Residency | undefined;
  for (let k = from; k < to; k++) {
    const i = slotOf(s, hi[k]!, lo[k]!);
    const id = s.blocks.cur(i);
    if (id !== last || f === undefined) {
      f = memo.byList.get(id);
      if (!f) memo.byList.set(id, (f = factsOf(s, listOf(s, id), t, chosen)));
      last = id;
    }
    out[k - from] = f;
  }
  return out;
}

function factsOf(s: State, list: readonly Interval[], t: number, chosen: number): Residency {
  return residencyOf(list, t, chosen, s.byId, s.clears.size > 0 ? (v) => endOf(s, v) : null);
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
 * After a prune: the blocks of up to `limit` buckets of attr_blocks after bucket `after` whose list is now empty point
 * to none; once no bucket is left, the empty lists are deleted. Returns the last bucket read (null when the pass is
 * complete) and blocks changed.
 */
export function dropEmptyBlocks(db: Db, after: number, limit: number): { next: number | null; changed: number } {
  const c = db.$client;
  const empty = new Set(c.prepare("SELECT id FROM attr_lists WHERE length(intervals) = 0").pluck().all() as number[]);
  const r =
    empty.size === 0
      ? { next: null, changed: 0 }
      : attrBlocks(c).rewrite(after, limit, (v) => (empty.has(v[LIST]!) ? [0, v[FIRST_AT]!] : v));
  if (r.next === null) c.prepare("DELETE FROM attr_lists WHERE length(intervals) = 0").run();
  return r;
}

/** Forget cached blocks and lists after a prune rewrote them on disk (everything was flushed before it). */
export function pruneDone(db: Db): void {
  const s = state(db);
  s.blocks.clear();
  s.lists = new Map([[0, EMPTY]]);
  s.listIntervals = 0;
  s.facts.byList.clear();
}
