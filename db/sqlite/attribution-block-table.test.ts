import { describe, expect, it } from "vitest";
import { BlockTable, halvesOf, KeyFilter, keyOf } from "./attribution-block-table";

const EDGES: bigint[] = [0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 32n, -(2n ** 32n), 2n ** 31n, 4_294_967_295n];

/** Deterministic pseudo-random signed 64-bit keys. */
function keys(n: number, seed: number): bigint[] {
  let x = BigInt(seed) | 1n;
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & (2n ** 64n - 1n);
    out.push(BigInt.asIntN(64, x));
  }
  return out;
}

describe("64-bit keys as int32 halves", () => {
  it.each(EDGES.map((k) => [k]))("%s round-trips", (k) => {
    const [hi, lo] = halvesOf(k);
    expect(Number.isInteger(hi) && Math.abs(hi) <= 2 ** 31 && Number.isInteger(lo)).toBe(true);
    expect(keyOf(hi, lo)).toBe(k);
  });
});

describe("block table", () => {
  it("values gives the list ids its held keys point to, in memory (changed or not), each once", () => {
    const t = new BlockTable(1 << 16);
    expect(t.values()).toEqual(new Set());
    const ks = keys(300, 7);
    ks.forEach((k, j) => t.add(...halvesOf(k), j % 5));
    t.set(t.find(...halvesOf(ks[0]!)), 42);
    expect(t.values()).toEqual(new Set([1, 2, 3, 4, 0, 42]));
  });

  it("probe gives a held key's slot, or the free slot addAt fills (also past a growth)", () => {
    const t = new BlockTable(16);
    const all = [...EDGES, ...keys(2_000, 9)];
    all.forEach((k, i) => {
      const [hi, lo] = halvesOf(k);
      const p = t.probe(hi, lo);
      expect(p).toBeLessThan(0);
      expect(t.addAt(-1 - p, hi, lo, i)).toBe(t.find(hi, lo));
      expect(t.probe(hi, lo)).toBe(t.find(hi, lo));
    });
    expect(t.size).toBe(all.length);
    expect(all.filter((k, i) => t.cur(t.find(...halvesOf(k))) !== i)).toEqual([]);
    expect(all.filter((k, i) => t.disk(t.find(...halvesOf(k))) !== i)).toEqual([]);
  });

  it("keeps values, disk values and dirty flags through growth; empty() forgets every key and stays usable", () => {
    const t = new BlockTable(16);
    const ks = keys(500, 4);
    ks.forEach((k, i) => t.add(...halvesOf(k), i));
    ks.forEach((k, i) => i % 3 === 0 && t.set(t.find(...halvesOf(k)), -i - 0.5));
    keys(5_000, 6).forEach((k) => t.add(...halvesOf(k), 1));
    const at = (k: bigint) => t.find(...halvesOf(k));
    expect(ks.filter((k, i) => t.cur(at(k)) !== (i % 3 === 0 ? -i - 0.5 : i))).toEqual([]);
    expect(ks.filter((k, i) => t.disk(at(k)) !== i || t.flag(at(k)) !== (i % 3 === 0 ? 1 : 0))).toEqual([]);
    expect(t.dirtyCount).toBe(167);
    ks.forEach((k) => t.clean(at(k)));
    t.empty();
    expect([t.size, t.dirtyCount, ks.filter((k) => at(k) !== -1).length]).toEqual([0, 0, 0]);
    t.add(...halvesOf(ks[1]!), 7);
    expect([t.cur(at(ks[1]!)), t.flag(at(ks[1]!)), t.size]).toEqual([7, 0, 1]);
  });

  it("finds what it holds (edges and 20k random keys, past several growths), nothing else", () => {
    const t = new BlockTable(16);
    const all = [...EDGES, ...keys(20_000, 7)];
    all.forEach((k, i) => t.add(...halvesOf(k), i));
    expect(t.size).toBe(all.length);
    expect(all.filter((k, i) => t.cur(t.find(...halvesOf(k))) !== i)).toEqual([]);
    expect(keys(1_000, 8).filter((k) => t.find(...halvesOf(k)) !== -1)).toEqual([]);
  });

  it("counts a block dirty once until cleaned, and gives dirty keys in order of their signed high half", () => {
    const t = new BlockTable(16);
    for (const k of EDGES) t.add(...halvesOf(k), 0);
    for (const k of EDGES) {
      const i = t.find(...halvesOf(k));
      t.set(i, 5);
      t.set(i, 6);
    }
    expect(t.dirtyCount).toBe(EDGES.length);
    const { hi, lo } = t.takeDirtySorted();
    const got = Array.from(hi, (h, j) => keyOf(h, lo[j]!));
    expect(new Set(got)).toEqual(new Set(EDGES));
    expect(Array.from(hi)).toEqual(EDGES.map((k) => halvesOf(k)[0]).sort((a, b) => a - b));
    const i = t.find(...halvesOf(-1n));
    t.clean(i);
    t.clean(i);
    expect([t.dirtyCount, t.disk(i)]).toEqual([EDGES.length - 1, 6]);
  });

  it("trim keeps the newest entries and every dirty one", () => {
    const t = new BlockTable(16);
    const ks = keys(1_000, 3);
    ks.forEach((k) => t.add(...halvesOf(k), 1));
    t.set(t.find(...halvesOf(ks[0]!)), 2);
    t.trim(200);
    expect(t.find(...halvesOf(ks[0]!))).toBeGreaterThanOrEqual(0);
    expect(t.find(...halvesOf(ks[999]!))).toBeGreaterThanOrEqual(0);
    expect(t.find(...halvesOf(ks[500]!))).toBe(-1);
    expect(t.size).toBe(101);
    t.trim(10_000);
    expect(t.size).toBe(101);
  });
});

describe("key filter", () => {
  it("never misses a key it was given, and rarely claims one it was not", () => {
    const f = new KeyFilter(200_000);
    const given = [...EDGES, ...keys(200_000, 11)];
    for (const k of given) f.add(...halvesOf(k));
    expect(given.every((k) => f.mightHold(...halvesOf(k)))).toBe(true);
    const others = keys(20_000, 12);
    const false_ = others.filter((k) => f.mightHold(...halvesOf(k))).length;
    expect(false_ / others.length).toBeLessThan(0.03);
    expect(f.full()).toBe(false);
  });

  it("says when it holds more than it was sized for", () => {
    const f = new KeyFilter(0);
    const [hi, lo] = halvesOf(12_345n);
    for (let i = 0; i < 900_000; i++) f.add(hi ^ i, lo + i);
    expect(f.full()).toBe(true);
  });
});

describe("bounded block table (a fixed number of slots, least recently used clean entries dropped)", () => {
  const halves = (k: bigint) => halvesOf(k);
  const held = (t: BlockTable, k: bigint) => t.find(...halves(k)) >= 0;
  const slots = (t: BlockTable) => (t as unknown as { cap: number }).cap;

  it("holds at most half its slots of clean entries, keeping the newest, and never grows", () => {
    const t = new BlockTable(64, true);
    const all = keys(500, 11);
    for (const k of all) t.add(...halves(k), 1);
    expect(slots(t)).toBe(64);
    expect(t.size).toBeLessThanOrEqual(32);
    expect(held(t, all.at(-1)!)).toBe(true);
    expect(all.slice(0, 400).filter((k) => held(t, k))).toEqual([]);
  });

  it("drops by last use, not first: a key touched again outlives newer ones", () => {
    const t = new BlockTable(64, true);
    const all = keys(200, 12);
    const hot = all[0]!;
    t.add(...halves(hot), 7);
    for (const k of all.slice(1)) {
      t.add(...halves(k), 1);
      t.touch(t.find(...halves(hot)));
    }
    expect(held(t, hot)).toBe(true);
    expect(t.cur(t.find(...halves(hot)))).toBe(7);
    expect(held(t, all[1]!)).toBe(false);
  });

  it("never drops an entry not yet written: it grows for them, and gives the room back once they are clean", () => {
    const t = new BlockTable(64, true);
    const all = keys(100, 13);
    for (const k of all) t.set(t.add(...halves(k), 1), 2);
    expect(t.dirtyCount).toBe(100);
    expect(all.filter((k) => !held(t, k))).toEqual([]);
    expect(slots(t)).toBeGreaterThan(64);
    for (const k of all) t.clean(t.find(...halves(k)));
    t.takeDirtySorted();
    t.empty();
    expect(slots(t)).toBe(64);
    expect(t.size).toBe(0);
  });
});
