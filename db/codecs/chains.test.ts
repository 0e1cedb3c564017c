import { describe, expect, it } from "vitest";
import {
  asBinary,
  assembleChain,
  commonPrefix,
  decodeHash,
  decodeHashes,
  encodeHash,
  encodeHashes,
  hashCount,
  type ChainLink,
} from "./chains";

const EDGES = ["0", "1", "9223372036854775807", "9223372036854775808", "18446744073709551615"];
const bin = (...h: string[]) => encodeHashes(h);

describe("encodeHashes / decodeHashes", () => {
  it.each([
    ["no hashes", [] as string[]],
    ["the u64 edges 0, 1, 2^63-1, 2^63, 2^64-1", EDGES],
    ["2,000 hashes", Array.from({ length: 2_000 }, (_, i) => String(BigInt(i) * 9_223_372_036_854_775n))],
  ])("round-trips %s exactly", (_, list) => {
    const b = encodeHashes(list);
    expect(b.byteLength).toBe(list.length * 8);
    expect(decodeHashes(b)).toEqual(list);
    expect(hashCount(b)).toBe(list.length);
  });

  it("encodes 5,000 spread u64 values exactly as their BigInt big-endian words", () => {
    let x = 0x9e3779b97f4a7c15n;
    const values = Array.from(
      { length: 5_000 },
      (_, i) =>
        (x = (x * 6_364_136_223_846_793_005n + 1_442_695_040_888_963_407n) & 0xffffffffffffffffn) >> BigInt(i % 64),
    );
    const b = encodeHashes(values.map(String));
    values.forEach((v, i) => expect(b.readBigUInt64BE(i * 8)).toBe(v));
  });

  it("writes 8 bytes big-endian per hash", () => {
    expect(bin("1", "18446744073709551615").toString("hex")).toBe("0000000000000001ffffffffffffffff");
  });

  it.each([
    ["legacy comma-separated text", "11,0,18446744073709551615", ["11", "0", "18446744073709551615"]],
    ["legacy empty text", "", []],
    ["null", null, []],
    ["a Uint8Array that is not a Buffer", new Uint8Array(bin("7", "8")), ["7", "8"]],
  ])("decodes %s", (_, stored, expected) => {
    expect(decodeHashes(stored)).toEqual(expected);
    expect(hashCount(stored)).toBe(expected.length);
    expect(decodeHashes(asBinary(stored))).toEqual(expected);
  });

  it("encodes a single parent hash, and reads it back from binary or legacy text", () => {
    expect(decodeHash(encodeHash("18446744073709551615"))).toBe("18446744073709551615");
    expect(decodeHash("42")).toBe("42");
    expect(encodeHash(null)).toBeNull();
    expect(decodeHash(null)).toBeNull();
  });
});

describe("commonPrefix", () => {
  it.each([
    [["1", "2", "3"], ["1", "2", "3", "4"], 3],
    [["1", "2", "3"], ["1", "9", "3"], 1],
    [["5"], ["1"], 0],
    [[], ["1"], 0],
    [["18446744073709551615", "0"], ["18446744073709551615", "1"], 1],
  ])("%j and %j share %i", (a, b, n) => {
    expect(commonPrefix(bin(...a), bin(...b))).toBe(n);
    expect(commonPrefix(bin(...b), bin(...a))).toBe(n);
  });
});

describe("assembleChain", () => {
  // r1 = 1 2 3; r2 = r1[0..3) + 4 5; r3 = r2[0..2) + 9 (diverged at block 2); r4 = r3[0..3) + nothing
  const links: Record<string, ChainLink> = {
    r1: { base: null, shared: 0, tail: bin("1", "2", "3") },
    r2: { base: "r1", shared: 3, tail: bin("4", "5") },
    r3: { base: "r2", shared: 2, tail: bin("9") },
    r4: { base: "r3", shared: 3, tail: bin() },
  };
  const next = (id: string) => links[id];

  it.each([
    ["r1", 3, ["1", "2", "3"]],
    ["r2", 5, ["1", "2", "3", "4", "5"]],
    ["r3", 3, ["1", "2", "9"]],
    ["r4", 3, ["1", "2", "9"]],
    ["r2", 2, ["1", "2"]],
  ])("builds %s's first %i hashes", (id, count, expected) => {
    expect(decodeHashes(assembleChain(links[id]!, count, next))).toEqual(expected);
  });

  it("stops at a chain already known instead of walking further up", () => {
    const seen: string[] = [];
    const out = assembleChain(links.r4!, 3, (id) => {
      seen.push(id);
      return id === "r3" ? bin("1", "2", "9") : links[id];
    });
    expect(decodeHashes(out)).toEqual(["1", "2", "9"]);
    expect(seen).toEqual(["r3"]);
  });

  it("reads each ancestor once along a 500-link chain (linear, not quadratic)", () => {
    const many: Record<string, ChainLink> = { t0: { base: null, shared: 0, tail: bin("0") } };
    for (let i = 1; i < 500; i++) many[`t${i}`] = { base: `t${i - 1}`, shared: i, tail: bin(String(i)) };
    let reads = 0;
    const out = assembleChain(many.t499!, 500, (id) => (reads++, many[id]));
    expect(decodeHashes(out)).toEqual(Array.from({ length: 500 }, (_, i) => String(i)));
    expect(reads).toBe(499);
  });

  it.each([
    ["a missing base", { base: "gone", shared: 1, tail: bin("2") }, /missing base gone/],
    ["shared blocks without a base", { base: null, shared: 1, tail: bin("2") }, /no base/],
    ["a cycle", { base: "self", shared: 1, tail: bin("2") }, /cycle/],
  ])("refuses %s", (_, leaf, error) => {
    const loop = { self: { base: "self", shared: 1, tail: bin("2") } } as Record<string, ChainLink>;
    expect(() => assembleChain(leaf, 2, (id) => loop[id])).toThrow(error);
  });
});
