import { describe, expect, it } from "vitest";
import { Rng } from "../sim/prng";
import { loneKeys } from "./lone-keys";

/** The answer by counting every key in a Map. */
function byMap(hi: Uint32Array, lo: Uint32Array): number[] {
  const counts = new Map<string, number>();
  const key = (i: number) => `${hi[i]}:${lo[i]}`;
  for (let i = 0; i < hi.length; i++) counts.set(key(i), (counts.get(key(i)) ?? 0) + 1);
  return Array.from(hi, (_, i) => (counts.get(key(i)) === 1 ? 1 : 0));
}

const keys = (pairs: [number, number][]) => [
  Uint32Array.from(pairs, (p) => p[0]),
  Uint32Array.from(pairs, (p) => p[1]),
];

describe("loneKeys", () => {
  it.each<[string, [number, number][], number[]]>([
    ["no keys", [], []],
    ["one key", [[1, 2]], [1]],
    [
      "a pair and a single",
      [
        [1, 2],
        [3, 4],
        [1, 2],
      ],
      [0, 1, 0],
    ],
    [
      "three of a kind",
      [
        [5, 5],
        [5, 5],
        [5, 5],
        [6, 5],
      ],
      [0, 0, 0, 1],
    ],
    [
      "halves equal across keys but not both",
      [
        [1, 2],
        [2, 1],
        [1, 1],
        [2, 2],
      ],
      [1, 1, 1, 1],
    ],
    [
      "the largest halves and zero",
      [
        [0xffffffff, 0xffffffff],
        [0, 0],
        [0xffffffff, 0xffffffff],
        [0, 0xffffffff],
      ],
      [0, 1, 0, 1],
    ],
  ])("%s", (_, pairs, expected) => {
    const [hi, lo] = keys(pairs);
    expect(Array.from(loneKeys(hi!, lo!))).toEqual(expected);
  });

  it("answers as counting in a map over 200,000 keys split in partitions, duplicates planted far apart", () => {
    const rng = new Rng(7);
    const rnd = () => rng.next();
    const n = 200_000;
    const hi = new Uint32Array(n);
    const lo = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      hi[i] = (rnd() * 2 ** 32) >>> 0;
      lo[i] = (rnd() * 2 ** 32) >>> 0;
    }
    // A tenth of the keys repeat an earlier one; some keys share a half with another.
    for (let i = 0; i < n; i += 10) {
      const j = Math.floor(rnd() * n);
      hi[i] = hi[j]!;
      lo[i] = lo[j]!;
    }
    for (let i = 5; i < n; i += 97) hi[i] = hi[i - 1]!;
    const expected = byMap(hi, lo);
    const got = Array.from(loneKeys(hi, lo));
    expect(got.filter((x) => x === 0).length).toBeGreaterThan(n / 20);
    expect(got).toEqual(expected);
  });

  it("refuses fewer halves than keys", () => {
    expect(() => loneKeys(new Uint32Array(3), new Uint32Array(2), 3)).toThrow(/fewer halves/);
  });
});
