import superjson from "superjson";
import { describe, expect, it } from "vitest";
import { isPlainJson, serializeOutput, transformer } from "./transformer";

class Point {
  constructor(readonly x: number) {}
}
class List extends Array<number> {}
const shared = { a: 1 };
const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: [2, null] });
const withSymbol = { a: 1, [Symbol("s")]: 2 };
const holey: unknown[] = [1, , 3]; // eslint-disable-line no-sparse-arrays
const deep = (n: number): unknown => (n === 0 ? 1 : { d: deep(n - 1) });
const chart = {
  step: 30_000,
  workers: [
    { workerId: "default/w1", t: [1_764_400_000_000, 1_764_400_030_000], util: [0.25, null], hitRate: [0.5, 1] },
    { workerId: "default/w2", t: [], util: [], hitRate: [] },
  ],
};

// Every case's wire text must be what superjson alone sends, and read back (by superjson, as the client does) to the same.
describe("serializeOutput: superjson's envelope, the plain ones without superjson's walk", () => {
  it.each<[string, unknown, boolean]>([
    ["a chart output", chart, true],
    ["null", null, true],
    ["a string", "s", true],
    ["a boolean", false, true],
    ["zero", 0, true],
    ["a large integer", 2 ** 53 - 1, true],
    ["an empty object", {}, true],
    ["an empty array", [], true],
    ["an object without a prototype", nullProto, true],
    ["the same primitive twice", { a: "x", b: "x", c: 1, d: 1 }, true],
    ["64 levels", deep(63), true],
    ["NaN in an array", [1, NaN], false],
    ["Infinity in an object", { a: Infinity }, false],
    ["-Infinity", -Infinity, false],
    ["-0", [-0], false],
    ["undefined as a value", { a: undefined }, false],
    ["undefined in an array", [undefined], false],
    ["a hole in an array", holey, false],
    ["undefined itself", undefined, false],
    ["a Date", { at: new Date(0) }, false],
    ["a Map", new Map([["a", 1]]), false],
    ["a Set", [new Set([1])], false],
    ["a bigint", { n: 10n }, false],
    ["a class instance", new Point(1), false],
    ["an Array subclass", List.from([1, 2]), false],
    ["a typed array", { b: new Float64Array(2) }, false],
    ["a RegExp", /x/, false],
    ["an object reached twice", { a: shared, b: shared }, false],
    ["an array reached twice", ((x: number[]) => [x, x])([1]), false],
    ["a symbol key", withSymbol, false],
    ["deeper than 64 levels", deep(70), false],
  ])("%s", (_, value, plain) => {
    expect(isPlainJson(value)).toBe(plain);
    const out = serializeOutput(value);
    if (plain) expect(out.json).toBe(value);
    const wire = JSON.stringify(out);
    expect(wire).toBe(JSON.stringify(superjson.serialize(value as never)));
    expect(transformer.deserialize(JSON.parse(wire))).toEqual(superjson.parse(superjson.stringify(value)));
  });

  it("a key superjson refuses: the same error as superjson's", () => {
    const polluted = JSON.parse('{"a":{"__proto__":{"x":1}}}') as unknown;
    expect(isPlainJson(polluted)).toBe(false);
    expect(() => serializeOutput(polluted)).toThrow(/prototype pollution/);
    expect(() => serializeOutput({ constructor: 1 })).toThrow(/prototype pollution/);
  });

  it("random trees of plain and special values: always superjson's wire text", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const specials = [NaN, Infinity, -0, undefined, new Date(5), 3n];
    const tree = (depth: number): unknown => {
      const r = rand();
      if (depth > 3 || r < 0.3) return rand() < 0.03 ? specials[Math.floor(rand() * specials.length)] : rand() * 100;
      if (r < 0.4) return rand() < 0.5 ? null : `s${Math.floor(rand() * 9)}`;
      const n = Math.floor(rand() * 5);
      if (r < 0.7) return Array.from({ length: n }, () => tree(depth + 1));
      return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, tree(depth + 1)]));
    };
    let plain = 0;
    for (let i = 0; i < 500; i++) {
      const value = tree(0);
      if (isPlainJson(value)) plain++;
      expect(JSON.stringify(serializeOutput(value))).toBe(JSON.stringify(superjson.serialize(value as never)));
    }
    // Both kinds were drawn.
    expect(plain).toBeGreaterThan(50);
    expect(plain).toBeLessThan(500);
  });
});
