import { describe, expect, it, vi } from "vitest";
import { testDb } from "../../test/db";
import { flushIndex, IndexWriter, intervalsOf, listCacheFull, nameId, resetIndexCache } from "./attribution-index";
import { state } from "./attribution-index-state";

// The cached interval lists are bounded by their intervals, not only by their count: blocks that move between tiers
// get a new, longer list at every offload and onboarding, and the lists they leave stay cached until a flush. A small
// bound here stands for the real one (lib/memory-bounds.ts).
vi.mock("../../lib/memory-bounds", async (original) => ({
  ...(await original<typeof import("../../lib/memory-bounds")>()),
  ATTR_LIST_CACHE_INTERVALS: 2_000,
}));

const T = 1_764_417_600_000;
const H = 1n << 40n;
const BLOCKS = 60;

/** Every block offloaded and onboarded back `cycles` times, each joining at its own time (lists of its own). */
function churn(db: ReturnType<typeof testDb>, cycles: number, from = 0) {
  const w = new IndexWriter(db);
  const w1 = nameId(db, "w1");
  const why = nameId(db, "offloaded");
  for (let c = from; c < from + cycles; c++)
    for (let k = 0; k < BLOCKS; k++) {
      const t = T + c * 1_000 + k;
      w.stored(H + BigInt(k), w1, t);
      w.removed(H + BigInt(k), w1, t + 500, why);
    }
}

const flushAll = (db: ReturnType<typeof testDb>) => {
  while (db.$client.transaction(() => flushIndex(db, 500))() > 0);
};

describe("the interval lists' cache", () => {
  it("counts the intervals it holds and says when they pass the bound", () => {
    const db = testDb();
    churn(db, 3);
    const s = state(db);
    const held = [...s.lists.values()].reduce((n, l) => n + l.length, 0);
    expect(s.listIntervals).toBe(held);
    expect(listCacheFull(db)).toBe(false);
    churn(db, 10, 3);
    // 60 blocks × 13 cycles, each cycle a new list per block one interval longer: far past 2,000.
    expect(s.listIntervals).toBeGreaterThan(2_000);
    expect(listCacheFull(db)).toBe(true);
  });

  it("is cut below three quarters of the bound by the flush, and every block still reads back its whole history", () => {
    const db = testDb();
    churn(db, 13);
    const before = Array.from({ length: BLOCKS }, (_, k) => intervalsOf(db, H + BigInt(k)));
    expect(before[7]).toHaveLength(13);
    flushAll(db);
    const s = state(db);
    expect(s.listIntervals).toBeLessThanOrEqual(1_500);
    expect(s.listIntervals).toBe([...s.lists.values()].reduce((n, l) => n + l.length, 0));
    expect(listCacheFull(db)).toBe(false);
    for (let k = 0; k < BLOCKS; k++) expect(intervalsOf(db, H + BigInt(k))).toEqual(before[k]);
    // And from disk alone.
    resetIndexCache(db);
    for (let k = 0; k < BLOCKS; k++) expect(intervalsOf(db, H + BigInt(k))).toEqual(before[k]);
  });
});
