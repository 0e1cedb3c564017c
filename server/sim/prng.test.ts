import { describe, expect, it } from "vitest";
import { hashString, Rng } from "./prng";

describe("Rng", () => {
  it("repeats its sequence for a seed and differs between seeds", () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const c = new Rng(43);
    const seqA = Array.from({ length: 5 }, () => a.u32());
    expect(Array.from({ length: 5 }, () => b.u32())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => c.u32())).not.toEqual(seqA);
  });

  it("derives streams that do not depend on how far the parent was drawn", () => {
    const a = new Rng(7);
    const b = new Rng(7);
    for (let i = 0; i < 100; i++) b.next();
    expect(a.derive("session:3").next()).toBe(b.derive("session:3").next());
    expect(a.derive("session:3").next()).not.toBe(a.derive("session:4").next());
  });

  it("draws distributions with the requested centre", () => {
    const rng = new Rng(1);
    const draws = Array.from({ length: 20_000 }, () => rng.lognormal(100, 1)).sort((x, y) => x - y);
    expect(draws[10_000]!).toBeGreaterThan(90);
    expect(draws[10_000]!).toBeLessThan(110);
    const mean = Array.from({ length: 20_000 }, () => rng.exponential(5)).reduce((s, x) => s + x, 0) / 20_000;
    expect(mean).toBeGreaterThan(4.7);
    expect(mean).toBeLessThan(5.3);
    const ints = new Set(Array.from({ length: 1_000 }, () => rng.int(2, 4)));
    expect([...ints].sort()).toEqual([2, 3, 4]);
    expect(Array.from({ length: 1_000 }, () => rng.geometric(3)).every((g) => g >= 1)).toBe(true);
  });

  it("hashes labels deterministically", () => {
    expect(hashString("abc")).toBe(hashString("abc"));
    expect(hashString("abc")).not.toBe(hashString("abd"));
  });
});
