import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";
import { pruneIndex } from "./attribution";
import { halvesOf } from "./attribution-block-table";
import { attrBlocks, attrLocal } from "./attribution-packed";
import { flushSeen, localSeenBefore, markLocal, markSeen, resetSeen, seenEpoch, seenFirstAt } from "./attribution-seen";

const T = 1_764_417_600_000;
const H = -5_000_000_000_000_000_000n;

const flushAll = (db: ReturnType<typeof testDb>) => {
  while (db.$client.transaction(() => flushSeen(db, 2))() > 0);
};
/** The first-seen marks of a table (the last value of each entry), in key order. */
const onDisk = (db: ReturnType<typeof testDb>, table: "attr_blocks" | "attr_local") =>
  (table === "attr_blocks" ? attrBlocks : attrLocal)(db.$client)
    .rows()
    .map((r) => r.values.at(-1));

describe("first-seen marks on disk relative to an epoch", () => {
  it.each<[string, number[]]>([
    ["one mark", [T]],
    ["later marks", [T, T + 1, T + 3_600_000, T + 30 * 86_400_000]],
    ["marks before the first one (the epoch)", [T, T - 1, T - 86_400_000]],
    ["the same block marked twice keeps the earliest", [T + 5, T + 2]],
  ])("%s read back as Unix ms after the cache is dropped", (_, ats) => {
    const db = testDb();
    const keys = ats.map((_, k) => (ats.length === 2 && ats[0] === T + 5 ? H : H + BigInt(k)));
    ats.forEach((at, k) => markSeen(db, ...halvesOf(keys[k]!), at));
    ats.forEach((at, k) => markLocal(db, ...halvesOf(keys[k]!), at));
    flushAll(db);
    expect(db.$client.prepare("SELECT value FROM attr_state WHERE key = 'epoch'").pluck().get()).toBe(ats[0]);
    const want = new Map<bigint, number>();
    keys.forEach((h, k) => want.set(h, Math.min(want.get(h) ?? Infinity, ats[k]!)));
    const rel = [...want.values()].map((at) => at - ats[0]!);
    expect(onDisk(db, "attr_blocks")).toEqual(rel);
    expect(onDisk(db, "attr_local")).toEqual(rel);
    resetSeen(db);
    for (const [h, at] of want) expect(seenFirstAt(db, ...halvesOf(h))).toBe(at);
    const [hi, lo] = [Int32Array.from(keys, (h) => halvesOf(h)[0]), Int32Array.from(keys, (h) => halvesOf(h)[1])];
    for (const [h, at] of want) {
      const k = keys.indexOf(h);
      expect(localSeenBefore(db, hi, lo, at).has(k)).toBe(false);
      expect(localSeenBefore(db, hi, lo, at + 1).has(k)).toBe(true);
    }
  });

  it("nothing marked: no epoch saved, nothing on disk, no block seen", () => {
    const db = testDb();
    flushAll(db);
    expect(db.$client.prepare("SELECT count(*) FROM attr_state WHERE key = 'epoch'").pluck().get()).toBe(0);
    expect(seenFirstAt(db, ...halvesOf(H))).toBeUndefined();
    expect(localSeenBefore(db, new Int32Array([1]), new Int32Array([2]), T).size).toBe(0);
  });

  it("an epoch read back from disk is kept by later marks; a prune compares Unix ms", () => {
    const db = testDb();
    markSeen(db, ...halvesOf(H), T);
    markLocal(db, ...halvesOf(H), T);
    flushAll(db);
    resetSeen(db);
    markSeen(db, ...halvesOf(H + 1n), T + 20);
    markLocal(db, ...halvesOf(H + 1n), T + 20);
    flushAll(db);
    expect(seenEpoch(db)).toBe(T);
    expect(onDisk(db, "attr_local")).toEqual([0, 20]);
    pruneIndex(db, T + 10);
    expect(onDisk(db, "attr_blocks")).toEqual([20]);
    expect(onDisk(db, "attr_local")).toEqual([20]);
    expect([seenFirstAt(db, ...halvesOf(H)), seenFirstAt(db, ...halvesOf(H + 1n))]).toEqual([undefined, T + 20]);
  });
});
