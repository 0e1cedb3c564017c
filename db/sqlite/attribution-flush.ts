import type { Db } from "./client";
import { encodeIntervals } from "./attribution-intervals";
import { attrBlocks, BucketWriter, earlier, FIRST_AT, LIST } from "./attribution-packed";
import type { Merge } from "./packed-keys";
import { filterOfDisk, state, trimCache, type State } from "./attribution-index-state";
import { seenMarkTaker } from "./attribution-seen";

// Writing the attribution index's changed blocks (see attribution-index.ts). One round writes every block changed in
// memory, in three passes of short transactions: the lists the blocks now point to, with the references the round
// adds (ids in order: new lists are appended); the blocks, in key order; the references they dropped, in id order
// (deleting lists nobody points to). Each page of attr_lists is written about once per round instead of once per
// transaction of blocks (which touched ~600 pages each, 87% of the WAL frames of a replayed hour). A list's count is
// never below the blocks on disk that point to it, so an interrupted round leaves counts too high at worst; the round
// is marked in attr_state and the next flush recounts from attr_blocks when it finds the mark.

/** A round of the flush: list-reference deltas (id-sorted), and how far each pass got. */
export type Round = {
  addIds: Float64Array;
  addBy: Float64Array;
  subIds: Float64Array;
  subBy: Float64Array;
  adds: number;
  subs: number;
  marked: boolean;
};

const MARK = "flush_round";
/**
 * A block written by the flush: its list replaced, its first-seen mark the earliest of the two. A block that no longer
 * points to a list keeps its row (and mark) with list 0, and gets none when it had none.
 */
const putBlock: Merge = (old, [list, at]) =>
  old === null ? (list === 0 ? null : [list!, at!]) : [list!, earlier(old[FIRST_AT]!, at!)];

function sortedDeltas(m: Map<number, number>): { ids: Float64Array; by: Float64Array } {
  const ids = Float64Array.from(m.keys()).sort();
  return { ids, by: ids.map((id) => m.get(id)!) };
}

/** The deltas of every list reference the dirty blocks change (cur on disk replacing disk). */
function startRound(s: State): Round {
  const t = s.blocks;
  s.flushOrder = { ...t.takeDirtySorted(), left: 0 };
  s.flushOrder.left = s.flushOrder.hi.length;
  const add = new Map<number, number>();
  const sub = new Map<number, number>();
  const { hi, lo } = s.flushOrder;
  const counted: number[] = [];
  for (let k = 0; k < hi.length; k++) {
    const i = t.find(hi[k]!, lo[k]!);
    if (i < 0 || t.flag(i) !== 1) continue;
    t.setFlag(i, 2); // counted once, however often the key is listed
    counted.push(i);
    const cur = t.cur(i);
    const disk = t.disk(i);
    if (cur === disk) continue;
    if (cur !== 0) add.set(cur, (add.get(cur) ?? 0) + 1);
    if (disk !== 0) sub.set(disk, (sub.get(disk) ?? 0) + 1);
  }
  for (const i of counted) t.setFlag(i, 1);
  const a = sortedDeltas(add);
  const d = sortedDeltas(sub);
  return { addIds: a.ids, addBy: a.by, subIds: d.ids, subBy: d.by, adds: 0, subs: 0, marked: false };
}

/** Counts from attr_blocks after an interrupted round (call inside a transaction); lists nobody points to go. */
function recount(db: Db): void {
  const c = db.$client;
  const counts = new Map<number, number>();
  const p = attrBlocks(c);
  p.scan((_hi, _lo, b, at) => {
    const list = p.value(b, at, LIST)!;
    if (list !== 0) counts.set(list, (counts.get(list) ?? 0) + 1);
  });
  const set = c.prepare("UPDATE attr_lists SET refs = ? WHERE id = ?");
  const drop = c.prepare("DELETE FROM attr_lists WHERE id = ?");
  for (const [id, refs] of c.prepare("SELECT id, refs FROM attr_lists").raw().all() as [number, number][]) {
    const n = counts.get(id) ?? 0;
    if (n === 0) drop.run(id);
    else if (n !== refs) set.run(n, id);
  }
  c.prepare("DELETE FROM attr_state WHERE key = ?").run(MARK);
}

/**
 * Write up to `limit` rows of the current round (call inside a transaction): lists and their added references, then
 * changed blocks, then dropped references; when the round is complete the applied KV cursor is saved with it. Returns
 * how many rows are still waiting.
 */
export function flushIndex(db: Db, limit: number): number {
  const s = state(db);
  const t = s.blocks;
  const c = db.$client;
  if (s.round === null && s.flushOrder.left === 0) {
    if (c.prepare("SELECT 1 FROM attr_state WHERE key = ?").pluck().get(MARK) !== undefined) recount(db);
    if (t.dirtyCount === 0) return 0;
  }
  let r = s.round;
  if (r === null) {
    r = s.round = startRound(s);
    // A round longer than this transaction is marked until its last one (see above).
    if (r.addIds.length + s.flushOrder.left + r.subIds.length > limit) {
      c.prepare("INSERT INTO attr_state (key, value) VALUES (?, 1) ON CONFLICT(key) DO NOTHING").run(MARK);
      r.marked = true;
    }
  }
  let n = 0;
  for (; n < limit && r.adds < r.addIds.length; n++, r.adds++) {
    const id = r.addIds[r.adds]!;
    const by = r.addBy[r.adds]!;
    if (s.listAdd.run(by, id).changes === 0) s.listNew.run(id, by, encodeIntervals(s.lists.get(id)!));
  }
  const order = s.flushOrder;
  // Keys come in order of their high half, so the blocks of one bucket of attr_blocks are written together.
  const out = new BucketWriter(s.packed, putBlock);
  const take = order.left > 0 ? seenMarkTaker(db) : null;
  while (n < limit && order.left > 0) {
    order.left--;
    const hi = order.hi[order.left]!;
    const lo = order.lo[order.left]!;
    const i = t.find(hi, lo);
    if (i < 0 || t.flag(i) === 0) continue;
    n++;
    const cur = t.cur(i);
    const disk = t.disk(i);
    t.clean(i);
    if (cur === disk) continue;
    // A first-seen mark waiting for the same block goes in the same write.
    out.add(hi, lo, [cur, cur !== 0 ? take!(hi, lo) : null]);
    if (cur !== 0) s.onDisk.add(hi, lo);
  }
  out.end();
  for (; n < limit && order.left === 0 && r.subs < r.subIds.length; n++, r.subs++) {
    const id = r.subIds[r.subs]!;
    s.listSub.run(r.subBy[r.subs]!, id);
    s.listDrop.run(id);
  }
  const left = r.addIds.length - r.adds + order.left + (r.subIds.length - r.subs);
  if (left > 0) return left + t.dirtyCount;
  s.round = null;
  if (r.marked) c.prepare("DELETE FROM attr_state WHERE key = ?").run(MARK);
  if (t.dirtyCount > 0) return t.dirtyCount;
  c.prepare(
    "INSERT INTO attr_state (key, value) VALUES ('kv', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  ).run(s.kvApplied);
  trimCache(s);
  if (s.onDisk.full()) s.onDisk = filterOfDisk(c);
  return 0;
}
