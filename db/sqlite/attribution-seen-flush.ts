import type { Db } from "./client";
import type { BlockTable } from "./attribution-block-table";
import { BucketWriter, earlier, FIRST_AT } from "./attribution-packed";
import { localFilterOfDisk, noOrder, state, type Order, type State } from "./attribution-seen";
import type { Merge, PackedKeys } from "./packed-keys";

// Writing the first-seen marks (see attribution-seen.ts): in key order, a bucket of keys at a time, the epoch saved
// with the first ones, the requests cursor with the last.

/** A sequence hash's mark on its attr_blocks entry (the earliest kept; a new entry points to no list). */
const seenMark: Merge = (old, [at]) => (old === null ? [0, at!] : [old[0]!, earlier(old[FIRST_AT]!, at!)]);
/** A local hash's mark (the earliest kept). */
const localMark: Merge = (old, [at]) => [old === null ? at! : earlier(old[0]!, at!)];

/** Write up to `n` marks of one dirty table, highest keys first; returns how many were written. */
function writeSome(
  t: BlockTable,
  o: { seen: Order; local: Order },
  which: "seen" | "local",
  p: PackedKeys,
  n: number,
  epoch: number,
): number {
  if (o[which].left === 0) {
    o[which] = { ...t.takeDirtySorted(), left: 0 };
    o[which].left = o[which].hi.length;
  }
  const order = o[which];
  const out = new BucketWriter(p, which === "seen" ? seenMark : localMark);
  let done = 0;
  while (done < n && order.left > 0) {
    order.left--;
    const hi = order.hi[order.left]!;
    const lo = order.lo[order.left]!;
    const i = t.find(hi, lo);
    if (i < 0 || t.flag(i) === 0) continue;
    out.add(hi, lo, [t.cur(i) - epoch]);
    t.clean(i);
    done++;
  }
  out.end();
  if (t.dirtyCount === 0) {
    t.empty();
    o[which] = noOrder();
  }
  return done;
}

/** Save the epoch before the first mark is written (inside the transaction writing it). */
function saveEpoch(db: Db, s: State): void {
  if (s.epochSaved) return;
  db.$client.prepare("INSERT INTO attr_state (key, value) VALUES ('epoch', ?)").run(s.epoch!);
  s.epochSaved = true;
}

/**
 * The unwritten first-seen mark of a sequence hash (int32 halves), as the value for attr_blocks' first_at, taken out of
 * the marks to write (null when it has none): the index flush writes it in the same row write as the block's list
 * (call inside that transaction). Like any mark, it lands before the requests cursor that covers it is saved.
 */
export function takeSeenMark(db: Db, hi: number, lo: number): number | null {
  return seenMarkTaker(db)(hi, lo);
}

/** takeSeenMark for one connection, its state looked up once (the index flush calls it for every block it writes). */
export function seenMarkTaker(db: Db): (hi: number, lo: number) => number | null {
  const s = state(db);
  const t = s.seenDirty;
  return (hi, lo) => {
    if (t.dirtyCount === 0) return null;
    const i = t.find(hi, lo);
    if (i < 0 || t.flag(i) !== 1) return null;
    saveEpoch(db, s);
    const rel = t.cur(i) - s.epoch!;
    t.clean(i);
    return rel;
  };
}

/**
 * Write up to `limit` marks (call inside a transaction), only local-hash marks when `localOnly`; when none is left
 * afterwards, the requests cursor is saved with them. Returns how many (of those asked for) are still waiting.
 */
export function flushSeen(db: Db, limit: number, localOnly = false): number {
  const s = state(db);
  let left = limit;
  if (s.seenDirty.dirtyCount + s.localDirty.dirtyCount > 0) saveEpoch(db, s);
  const epoch = s.epoch ?? 0;
  if (!localOnly && s.seenDirty.dirtyCount > 0) left -= writeSome(s.seenDirty, s.order, "seen", s.blocks, left, epoch);
  if (left > 0 && s.localDirty.dirtyCount > 0) writeSome(s.localDirty, s.order, "local", s.local, left, epoch);
  if (s.seenDirty.dirtyCount + s.localDirty.dirtyCount === 0) {
    db.$client
      .prepare(
        "INSERT INTO attr_state (key, value) VALUES ('requests', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      )
      .run(s.requestsDone);
    // Every mark is on disk (this transaction's once it commits): a larger filter can be read from attr_local alone.
    if (s.localKeys.full()) s.localKeys = localFilterOfDisk(db.$client);
  }
  return (localOnly ? 0 : s.seenDirty.dirtyCount) + s.localDirty.dirtyCount;
}
