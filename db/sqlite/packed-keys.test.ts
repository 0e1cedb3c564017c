import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { halvesOf } from "./attribution-block-table";
import { BEFORE_BUCKETS, PackedKeys, type Merge, type Value } from "./packed-keys";

function table(kinds: ("u32" | "i40")[] = ["u32", "i40"], load?: number) {
  const c = new Database(":memory:");
  c.exec("CREATE TABLE t (bucket integer PRIMARY KEY NOT NULL, entries blob NOT NULL)");
  c.exec("CREATE TABLE s (key text PRIMARY KEY, value integer NOT NULL)");
  return { c, p: new PackedKeys(c, "t", kinds, { load, stateTable: "s" }) };
}

const replace: Merge = (_old, u) => u;
/** The first value replaced, the second the smaller of the two (either when one is null). */
const min: Merge = (old, [a, b = null]) => {
  const was = old === null ? null : old[1]!;
  return [a!, was === null ? b : b === null ? was : Math.min(was, b)];
};

/** Write keys (in any order) with a merge, as the flushes do. */
function put(p: PackedKeys, rows: [bigint, Value[]][], merge: Merge = replace): number {
  return p.writeMany(
    rows.map(([h, values]) => {
      const [hi, lo] = halvesOf(h);
      return { hi, lo, values };
    }),
    merge,
  );
}

const U64_MAX = 2n ** 64n - 1n;
const signed = (h: bigint) => BigInt.asIntN(64, h);

describe("packed keys", () => {
  it.each<[string, bigint]>([
    ["zero", 0n],
    ["one", 1n],
    ["the largest positive i64", 2n ** 63n - 1n],
    ["the smallest i64", -(2n ** 63n)],
    ["minus one (all bits set)", -1n],
    ["a low half with its top bit set", 0x1234_5678_9abc_def0n],
    ["a bucket's first key", 0x7fff_0000_0000_0000n],
    ["u64 max as signed", signed(U64_MAX)],
  ])("reads back %s with its values", (_, h) => {
    const { p } = table();
    expect(put(p, [[h, [7, -12]]])).toBe(1);
    expect(p.get(...halvesOf(h))).toEqual([7, -12]);
    expect(p.rows()).toEqual([{ hash: h, values: [7, -12] }]);
    expect(p.get(...halvesOf(h ^ 1n))).toBeUndefined();
  });

  it.each<[string, Value[]]>([
    ["null", [0, null]],
    ["the largest i40", [1, 2 ** 39 - 1]],
    ["the smallest i40 but one (the smallest is null)", [1, -(2 ** 39) + 1]],
    ["u32 max", [2 ** 32 - 1, 0]],
    ["a time 30 days after the epoch", [3, 30 * 86_400_000]],
  ])("keeps %s", (_, values) => {
    const { p } = table();
    put(p, [[5n, values]]);
    expect(p.get(...halvesOf(5n))).toEqual(values);
  });

  it.each<[string, Value[], RegExp]>([
    ["a list past u32", [2 ** 32, 0], /value 0 must be an integer in 0\.\.2\^32-1/],
    ["a negative list", [-1, 0], /value 0 must be an integer in 0\.\.2\^32-1/],
    ["a null list", [null, 0], /value 0 must be an integer in 0\.\.2\^32-1/],
    ["a time past i40", [0, 2 ** 39], /value 1 must be an integer within ±2\^39/],
    ["the i40 that stands for null", [0, -(2 ** 39)], /value 1 must be an integer within ±2\^39/],
    ["a fraction", [0, 1.5], /value 1 must be an integer within ±2\^39/],
  ])("refuses %s and keeps what the bucket held", (_, values, error) => {
    const { p } = table();
    put(p, [[5n, [1, 2]]]);
    expect(() => put(p, [[6n, values]])).toThrow(error);
    expect(p.rows()).toEqual([{ hash: 5n, values: [1, 2] }]);
  });

  it("merges updates with what is held, several of one key in order, and counts keys changed", () => {
    const { p } = table();
    expect(
      put(
        p,
        [
          [10n, [1, 50]],
          [11n, [1, null]],
        ],
        min,
      ),
    ).toBe(2);
    // 10: an earlier mark wins; 11: a mark where there was none; 12: new; 10 again in the same write: later, kept 40.
    expect(
      put(
        p,
        [
          [10n, [2, 40]],
          [11n, [1, 70]],
          [12n, [3, 5]],
          [10n, [2, 45]],
        ],
        min,
      ),
    ).toBe(3);
    expect(p.rows()).toEqual([
      { hash: 10n, values: [2, 40] },
      { hash: 11n, values: [1, 70] },
      { hash: 12n, values: [3, 5] },
    ]);
    // The same values again change nothing and write nothing.
    expect(put(p, [[10n, [2, 40]]], min)).toBe(0);
  });

  it("leaves a key out when the merge says null, and removes a bucket left empty", () => {
    const { c, p } = table();
    put(p, [
      [10n, [1, 1]],
      [11n, [1, 1]],
    ]);
    const drop: Merge = () => null;
    expect(put(p, [[10n, [0, 0]]], drop)).toBe(1);
    expect(put(p, [[99n, [0, 0]]], drop)).toBe(0); // absent, stays absent
    expect(p.rows().map((r) => r.hash)).toEqual([11n]);
    put(p, [[11n, [0, 0]]], drop);
    expect(c.prepare("SELECT count(*) FROM t").pluck().get()).toBe(0);
  });

  it("rewrites buckets in order, a few at a time, dropping and changing keys", () => {
    const { p } = table();
    const keys = Array.from({ length: 40 }, (_, k) => (BigInt(k - 20) << 48n) | BigInt(k));
    put(
      p,
      keys.map((h, k) => [h, [k, k * 10]]),
    );
    let changed = 0;
    let calls = 0;
    for (let at: number | null = BEFORE_BUCKETS; at !== null; calls++) {
      const r = p.rewrite(at, 7, (v) => (v[0]! % 3 === 0 ? null : v[0]! % 3 === 1 ? [v[0]!, -1] : v));
      changed += r.changed;
      at = r.next;
    }
    expect(calls).toBe(6); // 40 buckets, 7 at a time
    expect(changed).toBe(27);
    expect(p.rows()).toEqual(
      keys.flatMap((h, k) => (k % 3 === 0 ? [] : [{ hash: h, values: [k, k % 3 === 1 ? -1 : k * 10] }])),
    );
  });

  it("splits buckets as the table grows past its load, every key still found, a bucket's keys all in it", () => {
    // A load of 1/256 key a bucket: the first split after 256 keys, a level (2^16 more buckets) after 512.
    const { c, p } = table(["i40"], 1 / 256);
    const want = new Map<bigint, number>();
    let seed = 11;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 0) / 2 ** 32;
    const key = () => signed((BigInt(Math.floor(rnd() * 2 ** 32)) << 32n) | BigInt(Math.floor(rnd() * 2 ** 32)));
    for (let w = 0; w < 400; w++) {
      const rows: [bigint, Value[]][] = [];
      for (let i = 0; i < 5; i++) {
        const h = key();
        rows.push([h, [w]]);
        want.set(h, w);
      }
      put(p, rows);
    }
    expect(p.buckets()).toBeGreaterThan(2 ** 16 + 20_000);
    expect(p.rows()).toEqual(
      [...want].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([hash, w]) => ({ hash, values: [w] })),
    );
    for (const [h, w] of want) expect(p.get(...halvesOf(h))).toEqual([w]);
    let misplaced = 0;
    p.scan((hi, _lo, _b, _at, row) => {
      if (p.bucketOf(hi) !== row) misplaced++;
    });
    expect(misplaced).toBe(0);
    expect(c.prepare("SELECT value FROM s WHERE key = 't_keys'").pluck().get()).toBe(want.size);
  });

  it("a split rolled back is forgotten on reload, and the keys are found where they are", () => {
    const { c, p } = table(["i40"], 1 / 4096);
    put(
      p,
      Array.from({ length: 16 }, (_, k): [bigint, Value[]] => [BigInt(k) << 56n, [k]]),
    );
    const before = p.buckets();
    expect(() =>
      c.transaction(() => {
        put(p, [[99n, [1]]]); // past the load: buckets split
        expect(p.buckets()).toBeGreaterThan(before);
        throw new Error("rolled back");
      })(),
    ).toThrow("rolled back");
    p.reload();
    expect(p.buckets()).toBe(before);
    expect(p.get(...halvesOf(99n))).toBeUndefined();
    for (let k = 0; k < 16; k++) expect(p.get(...halvesOf(BigInt(k) << 56n))).toEqual([k]);
  });

  it("agrees with a map over random keys, values, lookups and rewrites", () => {
    const { p } = table(["i40"]);
    const want = new Map<bigint, number>();
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 0) / 2 ** 32;
    // Few buckets (keys share their top bits) so buckets hold many keys each.
    const key = () => signed((BigInt(Math.floor(rnd() * 8)) << 61n) | BigInt(Math.floor(rnd() * 2 ** 40)));
    const early: Merge = (old, [a]) => [old === null ? a! : Math.min(old[0]!, a!)];
    for (let round = 0; round < 20; round++) {
      const rows: [bigint, Value[]][] = [];
      for (let i = 0; i < 300; i++) {
        const h = rnd() < 0.3 && want.size > 0 ? [...want.keys()][Math.floor(rnd() * want.size)]! : key();
        const at = Math.floor(rnd() * 1e9) - 5e8;
        rows.push([h, [at]]);
        want.set(h, Math.min(want.get(h) ?? Infinity, at));
      }
      put(p, rows, early);
      if (round % 5 === 4) {
        for (let at: number | null = BEFORE_BUCKETS; at !== null;)
          at = p.rewrite(at, 3, (v) => (v[0]! < -4e8 ? null : v)).next;
        for (const [h, at] of want) if (at < -4e8) want.delete(h);
      }
    }
    expect(p.rows()).toEqual(
      [...want].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([hash, at]) => ({ hash, values: [at] })),
    );
    const asked = [...want.keys()].slice(0, 200).concat([key(), key()]);
    const hi = Int32Array.from(asked.map((h) => halvesOf(h)[0]));
    const lo = Int32Array.from(asked.map((h) => halvesOf(h)[1]));
    const found = new Map<number, Value>();
    p.lookup(
      hi,
      lo,
      asked.map((_, k) => k),
      (k, b, at) => found.set(k, p.value(b, at, 0)),
    );
    for (let k = 0; k < asked.length; k++) expect(found.get(k)).toBe(want.get(asked[k]!));
    expect(p.count()).toBe(want.size);
  });
});
