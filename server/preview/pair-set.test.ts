import { describe, expect, it } from "vitest";
import { PairSet } from "./pair-set";

describe("PairSet", () => {
  it("holds 64-bit keys by both halves across growth", () => {
    const s = new PairSet(4);
    const keys: [number, number][] = [];
    for (let i = 0; i < 5000; i++) keys.push([(i * 2654435761) >>> 0, i % 7 === 0 ? 0xffffffff : i]);
    for (const [hi, lo] of keys) expect(s.addSeen(hi, lo)).toBe(false);
    expect(s.size).toBe(5000);
    for (const [hi, lo] of keys) expect(s.has(hi, lo)).toBe(true);
    expect(s.addSeen(keys[10]![0], keys[10]![1])).toBe(true);
    expect(s.has(keys[10]![0], keys[10]![1] ^ 1)).toBe(false);
    expect(s.has(1, 2)).toBe(false);
    expect(s.size).toBe(5000);
  });

  it.each([
    [0, 0],
    [0, 1],
    [1, 0],
    [0xffffffff, 0xffffffff],
    [-1, -1],
  ])("keeps (%i, %i), the empty slot's own words included, apart from its neighbours", (hi, lo) => {
    const s = new PairSet(2);
    expect(s.has(hi, lo)).toBe(false);
    expect(s.addSeen(hi, lo)).toBe(false);
    expect(s.addSeen(hi, lo)).toBe(true);
    expect(s.has(hi, lo)).toBe(true);
    for (let i = 1; i <= 100; i++) s.addSeen(i, i);
    expect(s.has(hi, lo)).toBe(true);
    expect(s.size).toBe(hi === lo && hi >>> 0 >= 1 && hi >>> 0 <= 100 ? 100 : 101);
    expect(s.has(hi >>> 0 === 0 ? 2 : 0, lo >>> 0 === 0 ? 3 : 0)).toBe(false);
  });
});
