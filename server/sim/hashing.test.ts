import { describe, expect, it } from "vitest";
import { chainHash, contentId, localHash, toDecimal, writeDecimal } from "./hashing";

const big = (hi: number, lo: number) => ((BigInt(hi) << 32n) | BigInt(lo)).toString();
const CASES: [number, number][] = [
  [0, 0],
  [0, 1],
  [0, 9999],
  [0, 10_000],
  [0x1fffff, 0xffffffff],
  [0x200000, 0],
  [0xffffffff, 0xffffffff],
  [0x80000000, 9999],
  [123456789, 987654321],
  [0, 4294967295],
  [1, 0],
  [2, 1_410_065_407],
  [0x8ac72304, 0x89e80000],
  [0x8ac72304, 0x89e7ffff],
  [232830, 2_764_472_319],
  // Around the four-digit groups writeDecimal stores whole: 10^8 - 1, 10^8, 10^12 - 1, 10^12, 10^16, 10^16 - 1.
  [0, 99_999_999],
  [0, 100_000_000],
  [232, 3_567_587_327],
  [232, 3_567_587_328],
  [2_328_306, 1_874_919_424],
  [2_328_306, 1_874_919_423],
  [0, 1_000_000_000],
  [0, 100_000_001],
];
/** writeDecimal's bytes as text, written after a byte that must stay untouched. */
const written = (hi: number, lo: number) => {
  const bytes = new Uint8Array(24).fill(33);
  const end = writeDecimal(bytes, 1, hi, lo);
  expect(bytes[0]).toBe(33);
  return Buffer.from(bytes.subarray(1, end)).toString("latin1");
};

describe("toDecimal", () => {
  it.each(CASES)("writes %i:%i as its u64 decimal", (hi, lo) => {
    expect(toDecimal(hi, lo)).toBe(big(hi, lo));
  });

  it.each(CASES)("writeDecimal writes %i:%i as the same digits into bytes", (hi, lo) => {
    expect(written(hi, lo)).toBe(big(hi, lo));
  });

  it("writeDecimal writes no byte past the digits (an array of exactly their length)", () => {
    for (const [hi, lo] of CASES) {
      const n = big(hi, lo).length;
      const bytes = new Uint8Array(n + 3).fill(33);
      expect(writeDecimal(bytes.subarray(2, 2 + n), 0, hi, lo)).toBe(n);
      expect(Buffer.from(bytes).toString("latin1")).toBe(`!!${big(hi, lo)}!`);
    }
  });

  it("agrees with BigInt on many values", () => {
    let x = 12345;
    for (let i = 0; i < 5_000; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const hi = x;
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      expect(toDecimal(hi, x)).toBe(big(hi, x));
      if (i % 5 === 0) expect(written(i % 10 === 0 ? 0 : hi, x)).toBe(big(i % 10 === 0 ? 0 : hi, x));
    }
  });
});

describe("block hashes", () => {
  const out = { hi: 0, lo: 0 };
  const seq = (parent: [number, number], content: number) => {
    chainHash(parent[0], parent[1], content, out);
    return [out.hi, out.lo] as [number, number];
  };

  it("chain the parent: the same content under another parent hashes differently", () => {
    const a = seq([0, 0], 5);
    expect(seq([0, 0], 5)).toEqual(a);
    expect(seq([1, 0], 5)).not.toEqual(a);
    expect(seq(a, 6)).not.toEqual(seq(seq([0, 0], 4), 6));
  });

  it("local hashes depend on content only", () => {
    localHash(contentId(1, 2), out);
    const first = toDecimal(out.hi, out.lo);
    localHash(contentId(1, 2), out);
    expect(toDecimal(out.hi, out.lo)).toBe(first);
    localHash(contentId(1, 3), out);
    expect(toDecimal(out.hi, out.lo)).not.toBe(first);
  });

  it("content ids stay below 2^53 and spread", () => {
    const ids = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      const id = contentId(7, i);
      expect(Number.isSafeInteger(id)).toBe(true);
      ids.add(id);
    }
    expect(ids.size).toBe(10_000);
  });
});
