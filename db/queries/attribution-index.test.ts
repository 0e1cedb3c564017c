import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import {
  blockFactsAt,
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

  it("spends about 8 bytes on a typical later interval", () => {
    const one = encodeIntervals([{ w: 1, storedAt: T, removedAt: T + 40_000, why: 2 }]).length;
    const two = encodeIntervals([
      { w: 1, storedAt: T, removedAt: T + 40_000, why: 2 },
      { w: 5, storedAt: T + 90_000, removedAt: T + 150_000, why: 2 },
    ]).length;
    expect(two - one).toBeLessThanOrEqual(8);
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
    const at = (t: number, on: string | null) => blockFactsAt(db, H, t, on, true);
    const check = () => {
      expect(at(T + 5, "w2")).toEqual({
        residentOn: ["w1"],
        seenBefore: true,
        lastRemoval: null,
        localSeenBefore: null,
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

  it("applying the same events twice changes nothing (a flush cut short is repaired by re-applying)", () => {
    const { db, w1, capacity, w } = setup();
    for (let i = 0; i < 2; i++) {
      w.stored(H, w1, T);
      w.removed(H, w1, T + 20, capacity);
      w.stored(H, w1, T + 30);
    }
    expect(blockFactsAt(db, H, T + 40, "w1", true)).toMatchObject({ residentOn: ["w1"], lastRemoval: { at: T + 20 } });
    db.$client.transaction(() => flushIndex(db, 10))();
    const blob = db.$client.prepare("SELECT intervals FROM attr_blocks WHERE hash = ?").pluck().get(H) as Buffer;
    expect(decodeIntervals(blob)).toHaveLength(2);
  });

  it("a kv.cleared ends what the worker held then, not what it stores later", () => {
    const { db, w1, w } = setup();
    w.stored(H, w1, T);
    w.cleared(w1, T + 10);
    w.stored(H + 1n, w1, T + 20);
    expect(blockFactsAt(db, H, T + 15, "w1", true)).toMatchObject({
      residentOn: [],
      lastRemoval: { reason: "cleared", at: T + 10 },
    });
    expect(blockFactsAt(db, H + 1n, T + 25, "w1", true)).toMatchObject({ residentOn: ["w1"], lastRemoval: null });
  });

  it("keeps at most MAX_INTERVALS per block, dropping the oldest closed ones", () => {
    const { db, w1, capacity, w } = setup();
    for (let i = 0; i < MAX_INTERVALS + 10; i++) {
      w.stored(H, w1, T + i * 10);
      w.removed(H, w1, T + i * 10 + 5, capacity);
    }
    db.$client.transaction(() => flushIndex(db, 10))();
    const list = decodeIntervals(
      db.$client.prepare("SELECT intervals FROM attr_blocks WHERE hash = ?").pluck().get(H) as Buffer,
    );
    expect(list).toHaveLength(MAX_INTERVALS);
    expect(list[0]!.storedAt).toBe(T + 10 * 10);
  });
});
