import { describe, expect, it } from "vitest";
import { encodeHashes } from "./chains";
import { decodeRuns, encodeRuns, MIN_RUN, putVarint } from "./runs";

const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(BigInt(from + i) * 1_000_003n));
const EDGES = ["0", "9223372036854775807", "9223372036854775808", "18446744073709551615"];

/** Encode `list` against `origin`, positions found by looking each hash up in the origin. */
function encode(list: string[], origin: string[]) {
  const at = new Map(origin.map((h, i) => [h, i]));
  return encodeRuns(encodeHashes(list), encodeHashes(origin), (i) => at.get(list[i]!) ?? -1);
}

const ORIGIN = [...EDGES, ...words(100, 500)];

describe("encodeRuns / decodeRuns", () => {
  it.each([
    ["nothing shared", words(9_000, 20), 0, 20],
    ["the whole origin", ORIGIN, 1, 0],
    [
      "a run at an offset (a first turn's own opening, then the shared prompt)",
      [...words(7, 1), ...ORIGIN.slice(0, 467)],
      1,
      1,
    ],
    ["a run in the middle, the u64 edges in it", [...words(7, 3), ...ORIGIN.slice(0, 40), ...words(50, 5)], 1, 8],
    ["two runs out of order", [...ORIGIN.slice(200, 260), ...words(1, 2), ...ORIGIN.slice(10, 30)], 2, 2],
    [`runs shorter than ${MIN_RUN} stay literal`, [...ORIGIN.slice(0, MIN_RUN - 1), ...words(1, 2), ORIGIN[9]!], 0, 6],
    ["a run to the origin's end then past it", [...ORIGIN.slice(-10), ...words(1, 3)], 1, 3],
    ["an empty list", [], 0, 0],
  ])("%s: round-trips exactly", (_, list, runs, literal) => {
    const enc = encode(list, ORIGIN);
    expect(enc.literal.byteLength / 8).toBe(literal);
    if (runs === 0) expect(enc.refs).toBeNull();
    else {
      expect(enc.refs!.byteLength).toBeLessThan(8 * runs + 4);
      expect(decodeRuns(enc.literal, enc.refs!, encodeHashes(ORIGIN))).toEqual(encodeHashes(list));
    }
  });

  it("takes a position only as a hint: a wrong one costs literal hashes, never a wrong list", () => {
    const list = ORIGIN.slice(0, 100);
    const enc = encodeRuns(encodeHashes(list), encodeHashes(ORIGIN), (i) => (i < 50 ? i + 1 : i));
    expect(enc.literal.byteLength / 8).toBe(50);
    expect(decodeRuns(enc.literal, enc.refs!, encodeHashes(ORIGIN))).toEqual(encodeHashes(list));
  });

  const prog = (...v: number[]) => {
    const out: number[] = [];
    v.forEach((x) => putVarint(out, x));
    return Buffer.from(out);
  };
  it.each([
    ["a program ending inside a number", Buffer.from([0x80]), 0, /ends inside a number/],
    ["more literal hashes than held", prog(3, 0), 2, /more literal hashes than it holds/],
    ["a run past the origin's end", prog(0, 5, ORIGIN.length - 2), 0, /past its origin/],
    ["literal hashes the program skips", prog(1, 0), 2, /skips literal hashes/],
  ])("refuses %s", (_, refs, literal, error) => {
    expect(() => decodeRuns(encodeHashes(words(1, literal)), refs, encodeHashes(ORIGIN))).toThrow(error);
  });
});
