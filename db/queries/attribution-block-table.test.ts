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
