import { describe, expect, it } from "vitest";
import { halvesOf } from "./attribution-block-table";
import { attrBlocks, LIST } from "./attribution-packed";
import type { Db } from "./client";
import { testDb } from "../../test/db";
import { pruneIndex } from "./attribution";
import { flushSeen, markSeen, seenBefore, seenFirstAt } from "./attribution-seen";
import {
  residenciesAt,
  residencyAt,
  decodeIntervals,
  dirtyBlocks,
  encodeIntervals,
  flushIndex,
  IndexWriter,
  MAX_INTERVALS,
  nameId,
  resetIndexCache,
  type Interval,
} from "./attribution-index";

const T = 1_764_417_600_000;
const H = -5_000_000_000_000_000_000n;
/** A block's stored interval list (attr_blocks points to its attr_lists row). */
const listOf = (db: Db, hash: bigint) => {
  const list = attrBlocks(db.$client).get(...halvesOf(hash))?.[LIST];
  return db.$client.prepare("SELECT intervals FROM attr_lists WHERE id = ?").pluck().get(list) as Buffer;
};

describe("interval blobs", () => {
  it.each<[string, Interval[]]>([
    ["none", []],
    ["one open", [{ w: 1, storedAt: T, removedAt: null, why: 0 }]],
    [
      "closed and open",
      [
        { w: 65_535, storedAt: T, removedAt: T + 5, why: 7 },
        { w: 2, storedAt: T + 9, removedAt: null, why: 0 },
      ],
    ],
    [
      "out of order, same ms, long-lived",
      [
        { w: 3, storedAt: T + 1_000, removedAt: T + 1_000, why: 1 },
        { w: 300, storedAt: T, removedAt: T + 30 * 86_400_000, why: 2 },
      ],
    ],
  ])("round-trips %s", (_, list) => {
    expect(decodeIntervals(encodeIntervals(list))).toEqual(list);
  });

  it.each([
    ["one open", [{ w: 1, storedAt: T, removedAt: null, why: 0 }]],
    [
      "ids past the packed byte",
      [
        { w: 16, storedAt: T, removedAt: T + 5, why: 1 },
        { w: 3, storedAt: T + 9, removedAt: T + 20, why: 16 },
        { w: 15, storedAt: T + 9, removedAt: null, why: 15 },
      ],
    ],
  ])("reads %s as written before the packed form (ids as two varints, no leading byte)", (_, list) => {
    const varint = (v: number) => {
      const out: number[] = [];
      for (; v >= 128; v = Math.floor(v / 128)) out.push((v % 128) + 128);
      return [...out, v];
    };
    const old: number[] = [];
    let prev = 0;
    for (const v of list) {
      const d = v.storedAt - prev;
      old.push(...varint(v.w), ...varint(v.why), ...varint(d >= 0 ? d * 2 : -d * 2 - 1));
      old.push(...varint(v.removedAt === null ? 0 : v.removedAt - v.storedAt + 1));
      prev = v.storedAt;
    }
    expect(decodeIntervals(Buffer.from(old))).toEqual(list);
    expect(decodeIntervals(encodeIntervals(list))).toEqual(list);
  });

  it("keeps an empty list an empty blob (what dropEmptyBlocks looks for)", () => {
    expect(encodeIntervals([]).length).toBe(0);
  });

  it("spends about 7 bytes on a typical later interval (worker and reason in one byte)", () => {
    const one = encodeIntervals([{ w: 1, storedAt: T, removedAt: T + 40_000, why: 2 }]).length;
    const two = encodeIntervals([
      { w: 1, storedAt: T, removedAt: T + 40_000, why: 2 },
      { w: 5, storedAt: T + 90_000, removedAt: T + 150_000, why: 2 },
    ]).length;
    expect(two - one).toBeLessThanOrEqual(7);
  });
});

describe("the block index", () => {
  function setup() {
    const db = testDb();
    const w1 = nameId(db, "w1");
    const w2 = nameId(db, "w2");
    const capacity = nameId(db, "capacity");
    return { db, w1, w2, capacity, w: new IndexWriter(db) };
  }

  it("answers residency and the last removal at any time, the same from memory and after a flush and reload", () => {
    const { db, w1, w2, capacity, w } = setup();
    w.stored(H, w1, T);
    w.stored(H, w2, T + 10);
    w.removed(H, w1, T + 20, capacity);
    const at = (t: number, on: string | null) => residencyAt(db, ...halvesOf(H), t, on);
    const check = () => {
      expect(at(T + 5, "w2")).toEqual({
        residentOn: ["w1"],
        lastRemoval: null,
      });
      expect([...at(T + 15, "w1").residentOn].sort()).toEqual(["w1", "w2"]);
      expect(at(T + 25, "w1")).toMatchObject({
        residentOn: ["w2"],
        lastRemoval: { reason: "capacity", at: T + 20, workerId: "w1" },
      });
    };
    check();
    expect(dirtyBlocks(db)).toBe(1);
    while (db.$client.transaction(() => flushIndex(db, 1))() > 0);
    resetIndexCache(db);
    check();
  });

  it("answers a turn's blocks at once as it answers each (residency and first-seen marks, from memory and disk)", () => {
    const { db, w1, w2, capacity, w } = setup();
    const n = 300;
    const key = (k: number) => H + BigInt(k * 7919);
    for (let k = 0; k < n; k++) if (k % 5 !== 4) w.stored(key(k), k % 2 ? w1 : w2, T + (k % 3));
    for (let k = 0; k < n; k += 3) w.removed(key(k), k % 2 ? w1 : w2, T + 10 + (k % 4), capacity);
    for (let k = 0; k < n; k += 2) markSeen(db, ...halvesOf(key(k)), T + 5 + (k % 6));
    const hi = new Int32Array(n);
    const lo = new Int32Array(n);
    for (let k = 0; k < n; k++) [hi[k], lo[k]] = halvesOf(key(k));
    const check = (t: number, on: string | null) => {
      const each = Array.from(hi, (h, k) => residencyAt(db, h, lo[k]!, t, on));
      expect(residenciesAt(db, hi, lo, 0, n, t, on)).toEqual(each);
      expect(residenciesAt(db, hi, lo, 100, 200, t, on)).toEqual(each.slice(100, 200));
      const seen = Array.from(hi, (h, k) => Number((seenFirstAt(db, h, lo[k]!) ?? Infinity) < t));
      expect(Array.from(seenBefore(db, hi, lo, n, t))).toEqual(seen);
      return seen.filter((x) => x === 1).length;
    };
    expect([check(T - 1, "w1"), check(T + 20, "w1")]).toEqual([0, n / 2]);
    for (const t of [T - 1, T + 1, T + 8, T + 12, T + 20]) for (const on of ["w1", "w2", null]) check(t, on);
    while (db.$client.transaction(() => flushIndex(db, 50))() > 0);
    while (db.$client.transaction(() => flushSeen(db, 50))() > 0);
    resetIndexCache(db);
    for (const t of [T + 1, T + 12]) check(t, "w1");
  });

  it("applying the same events twice changes nothing (a flush cut short is repaired by re-applying)", () => {
    const { db, w1, capacity, w } = setup();
    for (let i = 0; i < 2; i++) {
      w.stored(H, w1, T);
      w.removed(H, w1, T + 20, capacity);
      w.stored(H, w1, T + 30);
    }
    expect(residencyAt(db, ...halvesOf(H), T + 40, "w1")).toMatchObject({
      residentOn: ["w1"],
      lastRemoval: { at: T + 20 },
    });
    db.$client.transaction(() => flushIndex(db, 10))();
    const blob = listOf(db, H);
    expect(decodeIntervals(blob)).toHaveLength(2);
  });

  it("a kv.cleared ends what the worker held then, not what it stores later", () => {
    const { db, w1, w } = setup();
    w.stored(H, w1, T);
    w.cleared(w1, T + 10);
    w.stored(H + 1n, w1, T + 20);
    expect(residencyAt(db, ...halvesOf(H), T + 15, "w1")).toMatchObject({
      residentOn: [],
      lastRemoval: { reason: "cleared", at: T + 10 },
    });
    expect(residencyAt(db, ...halvesOf(H + 1n), T + 25, "w1")).toMatchObject({ residentOn: ["w1"], lastRemoval: null });
  });

  it("keeps at most MAX_INTERVALS per block, dropping the oldest closed ones", () => {
    const { db, w1, capacity, w } = setup();
    for (let i = 0; i < MAX_INTERVALS + 10; i++) {
      w.stored(H, w1, T + i * 10);
      w.removed(H, w1, T + i * 10 + 5, capacity);
    }
    db.$client.transaction(() => flushIndex(db, 10))();
    const list = decodeIntervals(listOf(db, H));
    expect(list).toHaveLength(MAX_INTERVALS);
    expect(list[0]!.storedAt).toBe(T + 10 * 10);
  });

  const lists = (db: ReturnType<typeof testDb>) =>
    db.$client.prepare("SELECT refs, intervals FROM attr_lists ORDER BY id").all() as {
      refs: number;
      intervals: Buffer;
    }[];
  const flushAll = (db: ReturnType<typeof testDb>) => {
    while (db.$client.transaction(() => flushIndex(db, 2))() > 0);
  };

  it("stores one list for the blocks an event changed alike, counts who points to it, and deletes one nobody does", () => {
    const { db, w1, capacity, w } = setup();
    const hs = [H, H + 1n, H + 2n];
    for (const h of hs) w.stored(h, w1, T);
    flushAll(db);
    expect(lists(db).map((l) => l.refs)).toEqual([3]);
    w.removed(H, w1, T + 5, capacity);
    flushAll(db);
    expect(lists(db).map((l) => l.refs)).toEqual([2, 1]);
    for (const h of hs.slice(1)) w.removed(h, w1, T + 5, capacity);
    flushAll(db);
    expect(lists(db)).toHaveLength(1);
    expect(lists(db)[0]!.refs).toBe(3);
    expect(decodeIntervals(lists(db)[0]!.intervals)).toEqual([{ w: w1, storedAt: T, removedAt: T + 5, why: capacity }]);
    resetIndexCache(db);
    for (const h of hs) expect(residencyAt(db, ...halvesOf(h), T + 6, "w1").lastRemoval).toMatchObject({ at: T + 5 });
  });

  it("a prune drops intervals that ended before the cutoff; a block left with none is deleted, the others keep theirs", () => {
    const { db, w1, w2, capacity, w } = setup();
    w.stored(H, w1, T);
    w.removed(H, w1, T + 10, capacity);
    w.stored(H + 1n, w1, T);
    w.removed(H + 1n, w1, T + 10, capacity);
    w.stored(H + 1n, w2, T + 20);
    expect(pruneIndex(db, T + 15)).toBeGreaterThan(0);
    expect(
      attrBlocks(db.$client)
        .rows()
        .map((r) => r.hash),
    ).toEqual([H + 1n]);
    expect(residencyAt(db, ...halvesOf(H), T + 30, "w1")).toMatchObject({ residentOn: [], lastRemoval: null });
    expect(residencyAt(db, ...halvesOf(H + 1n), T + 30, "w1")).toMatchObject({ residentOn: ["w2"], lastRemoval: null });
    expect(lists(db).map((l) => l.refs)).toEqual([1]);
  });
});
