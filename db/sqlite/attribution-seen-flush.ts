import type { Db } from "./client";
import { BlockTable, PUT_ROWS } from "./attribution-block-table";
import { localFilterOfDisk, noOrder, state, type Order, type Puts, type State } from "./attribution-seen";

// Writing the first-seen marks (see attribution-seen.ts): in key order, PUT_ROWS rows to a statement, the epoch saved
// with the first ones, the requests cursor with the last.

/** Parameters of one multi-row write of marks, reused. */
const putRows: number[] = new Array<number>(3 * PUT_ROWS).fill(0);

/** Write up to `n` marks of one dirty table, highest keys first; returns how many were written. */
function writeSome(
  t: BlockTable,
  o: { seen: Order; local: Order },
  which: "seen" | "local",
  put: Puts,
  n: number,
  epoch: number,
): number {
  if (o[which].left === 0) {
    o[which] = { ...t.takeDirtySorted(), left: 0 };
    o[which].left = o[which].hi.length;
  }
  const order = o[which];
  const rows = putRows;
  let k = 0;
  let done = 0;
  while (done < n && order.left > 0) {
    order.left--;
    const hi = order.hi[order.left]!;
    const lo = order.lo[order.left]!;
    const i = t.find(hi, lo);
    if (i < 0 || t.flag(i) === 0) continue;
    rows[k] = hi;
    rows[k + 1] = lo;
    rows[k + 2] = t.cur(i) - epoch;
    k += 3;
    if (k === rows.length) {
      put.many.run(rows);
      k = 0;
    }
    t.clean(i);
    done++;
  }
  for (let j = 0; j < k; j += 3) put.one.run(rows[j], rows[j + 1], rows[j + 2]);
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
 * The unwritten first-seen mark of a sequence hash (int32 halves), as the value for attr_blocks.first_at, taken out of
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
  if (!localOnly && s.seenDirty.dirtyCount > 0) left -= writeSome(s.seenDirty, s.order, "seen", s.seenPut, left, epoch);
  if (left > 0 && s.localDirty.dirtyCount > 0) writeSome(s.localDirty, s.order, "local", s.localPut, left, epoch);
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
