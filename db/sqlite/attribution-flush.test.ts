import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import type { Db } from "./client";
import { flushIndex, IndexWriter, nameId, resetIndexCache, residencyAt } from "./attribution-index";
import { halvesOf } from "./attribution-block-table";
import { attrBlocks, attrLocal, LIST } from "./attribution-packed";
import { dirtySeen, flushSeen, markLocal, markSeen, resetSeen, seenFirstAt } from "./attribution-seen";

const T = 1_764_417_600_000;
const H = 1n << 40n;

/** Stored lists counts against the blocks on disk that point to each list (they must agree after a flush). */
function counts(db: Db) {
  const c = db.$client;
  const refs = c.prepare("SELECT id, refs FROM attr_lists ORDER BY id").raw().all();
  const by = new Map<number, number>();
  for (const { values } of attrBlocks(c).rows())
    if (values[LIST] !== 0) by.set(values[LIST]!, (by.get(values[LIST]!) ?? 0) + 1);
  const pointed = [...by].sort((a, b) => a[0] - b[0]);
  return { refs, pointed };
}

const marked = (db: Db) =>
  db.$client.prepare("SELECT count(*) FROM attr_state WHERE key = 'flush_round'").pluck().get();

/** 200 blocks stored on two workers and removed in groups: many lists, each shared by a few blocks. */
function events(db: Db) {
  const w = new IndexWriter(db);
  const w1 = nameId(db, "w1");
  const w2 = nameId(db, "w2");
  const why = nameId(db, "capacity");
  for (let k = 0; k < 200; k++) w.stored(H + BigInt(k), k % 2 ? w1 : w2, T + k);
  for (let k = 0; k < 200; k += 3) w.removed(H + BigInt(k), k % 2 ? w1 : w2, T + 1_000 + (k % 7), why);
}

describe("flushing the index in rounds", () => {
  it("writes lists, then blocks, then dropped references over many short transactions, counts exact", () => {
    const db = testDb();
    events(db);
    const flush = () => db.$client.transaction(() => flushIndex(db, 7))();
    let txs = 0;
    while (flush() > 0) {
      txs++;
      expect(marked(db)).toBe(1);
    }
    expect(txs).toBeGreaterThan(10);
    expect(marked(db)).toBe(0);
    const { refs, pointed } = counts(db);
    expect(refs).toEqual(pointed);
    expect(refs.length).toBeGreaterThan(5);
    // A second round moves blocks off lists written by the first: the lists nobody points to are deleted.
    const w = new IndexWriter(db);
    for (let k = 0; k < 200; k++) w.removed(H + BigInt(k), k % 2 ? nameId(db, "w1") : nameId(db, "w2"), T + 5_000, 1);
    while (flush() > 0);
    expect(counts(db).refs).toEqual(counts(db).pointed);
    resetIndexCache(db);
    expect(residencyAt(db, ...halvesOf(H + 1n), T + 500, "w1").residentOn).toEqual(["w1"]);
    expect(residencyAt(db, ...halvesOf(H + 1n), T + 6_000, "w1").lastRemoval).toMatchObject({ at: T + 5_000 });
  });

  it("a round cut short (a transaction rolled back) is repaired: counts from attr_blocks, orphan lists deleted", () => {
    const db = testDb();
    events(db);
    for (let i = 0; i < 12; i++) db.$client.transaction(() => flushIndex(db, 7))();
    expect(marked(db)).toBe(1);
    expect(counts(db).refs).not.toEqual(counts(db).pointed);
    resetIndexCache(db);
    events(db);
    while (db.$client.transaction(() => flushIndex(db, 7))() > 0);
    expect(marked(db)).toBe(0);
    const { refs, pointed } = counts(db);
    expect(refs).toEqual(pointed);
    resetIndexCache(db);
    expect(residencyAt(db, ...halvesOf(H + 3n), T + 2_000, "w1").lastRemoval).toMatchObject({ at: T + 1_003 });
    expect(residencyAt(db, ...halvesOf(H + 4n), T + 2_000, "w2").residentOn).toEqual(["w2"]);
  });

  it.each([
    ["a mark earlier than the one on disk", T - 50, T - 50],
    ["a mark later than the one on disk keeps the earlier", T + 50, T],
  ])("writes a block's pending first-seen mark in the same row as its list: %s", (_, later, want) => {
    const db = testDb();
    const w1 = nameId(db, "w1");
    const k = H + 7n;
    // An earlier mark on disk, then a block stored, a new mark, and the index flushed: one row with both.
    markSeen(db, ...halvesOf(k), T);
    while (db.$client.transaction(() => flushSeen(db, 100))() > 0);
    new IndexWriter(db).stored(k, w1, T + 10);
    markSeen(db, ...halvesOf(k + 1n), T + 20);
    markSeen(db, ...halvesOf(k), later);
    expect(dirtySeen(db)).toBe(2);
    while (db.$client.transaction(() => flushIndex(db, 100))() > 0);
    // The flushed block's mark was taken; the other block's waits for the seen flush.
    expect(dirtySeen(db)).toBe(1);
    const epoch = db.$client.prepare("SELECT value FROM attr_state WHERE key = 'epoch'").pluck().get() as number;
    const [list, at] = attrBlocks(db.$client).get(...halvesOf(k))!;
    expect({ listed: list !== 0, at: at! + epoch }).toEqual({ listed: true, at: want });
    while (db.$client.transaction(() => flushSeen(db, 100))() > 0);
    resetSeen(db);
    expect(seenFirstAt(db, ...halvesOf(k))).toBe(want);
    expect(seenFirstAt(db, ...halvesOf(k + 1n))).toBe(T + 20);
  });

  it("writes the same rows whether its transactions are short or take hundreds of blocks (a bucket of keys to a write)", () => {
    const tables = (limit: number) => {
      const db = testDb();
      const w1 = nameId(db, "w1");
      // Marks on disk first for some blocks, then 700 blocks stored (some removed), new marks for every third.
      for (let k = 0; k < 700; k += 5) markSeen(db, ...halvesOf(H + BigInt(k)), T + k);
      for (let k = 0; k < 700; k += 4) markLocal(db, ...halvesOf(-H - BigInt(k)), T + k);
      while (db.$client.transaction(() => flushSeen(db, limit))() > 0);
      const w = new IndexWriter(db);
      for (let k = 0; k < 700; k++) w.stored(H + BigInt(k), w1, T + 100 + (k % 9));
      for (let k = 0; k < 700; k += 7) w.removed(H + BigInt(k), w1, T + 900, 1);
      for (let k = 0; k < 700; k += 3) markSeen(db, ...halvesOf(H + BigInt(k)), T + 50 + (k % 11));
      for (let k = 0; k < 700; k += 2) markLocal(db, ...halvesOf(-H - BigInt(k)), T + 60 - (k % 13));
      while (db.$client.transaction(() => flushIndex(db, limit))() > 0);
      while (db.$client.transaction(() => flushSeen(db, limit))() > 0);
      const all = (sql: string) => db.$client.prepare(sql).raw().safeIntegers().all() as unknown[][];
      return {
        blocks: attrBlocks(db.$client)
          .rows()
          .map((r) => [r.hash, ...r.values]),
        lists: all("SELECT * FROM attr_lists ORDER BY id"),
        local: attrLocal(db.$client)
          .rows()
          .map((r) => [r.hash, ...r.values]),
        state: all("SELECT * FROM attr_state ORDER BY key"),
      };
    };
    const few = tables(7);
    const many = tables(5_000);
    expect(few.blocks.length).toBe(700);
    expect(few.blocks.filter((r) => r[2] !== null).length).toBeGreaterThan(300);
    expect(few.local.length).toBe(350);
    expect(many).toEqual(few);
  });
});
