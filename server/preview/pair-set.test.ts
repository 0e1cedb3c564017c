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
});
