import { describe, expect, it } from "vitest";
import { decodeHashes, encodeHashes } from "./chains";
import { decodeBlockList, encodeBlockList, MIN_REF_RUN } from "./kv-lists";

const words = (from: number, n: number, step = 1) =>
  Array.from({ length: n }, (_, i) => String(BigInt(from + i * step) * 1_000_003n + 18_000_000_000_000_000_000n));

/** An origin store: rowid → literal hashes (its time: rowid × 10 s, or `sec`), and where each hash is held. */
function origins(rows: Record<number, string[]>, sec = (rowid: number) => rowid * 10) {
  const blobs = new Map(Object.entries(rows).map(([k, v]) => [Number(k), encodeHashes(v)]));
  const where = new Map<string, { rowid: number; pos: number }>();
  for (const [rowid, list] of Object.entries(rows))
    list.forEach((h, pos) => where.set(h, { rowid: Number(rowid), pos }));
  return {
    origin: (rowid: number) => blobs.get(rowid) ?? null,
    info: (rowid: number) => {
      const b = blobs.get(rowid);
      return b ? { sec: sec(rowid), count: b.byteLength / 8 } : null;
    },
    locate: (list: string[]) => ({
      rowid: Float64Array.from(list, (h) => where.get(h)?.rowid ?? 0),
      pos: Int32Array.from(list, (h) => where.get(h)?.pos ?? 0),
      sec: Float64Array.from(list, (h) => (where.has(h) ? where.get(h)!.rowid * 10 : 0)),
    }),
    blobs,
  };
}

describe("encodeBlockList / decodeBlockList", () => {
  const base = words(0, 40);
  const other = words(1_000, 30);
  const o = origins({ 7: base, 9: other });
  it.each([
    ["nothing known: all literal, no program", words(5_000, 10), 10, false],
    ["a run of an origin: one reference", base.slice(5, 25), 0, true],
    ["a descending run (leaf first, as evictions report it)", base.slice(3, 19).reverse(), 0, true],
    [
      "literal, a run, literal, a run of another origin",
      [...words(9_000, 3), ...base.slice(0, 8), "5", ...other.slice(2, 12)],
      4,
      true,
    ],
    [`a run shorter than ${MIN_REF_RUN} stays literal`, base.slice(0, MIN_REF_RUN - 1), MIN_REF_RUN - 1, false],
    ["positions not consecutive in the origin stay literal", base.filter((_, i) => i % 2 === 0), 20, false],
    ["u64 edges", ["0", "18446744073709551615", "9223372036854775808", "9223372036854775807"], 4, false],
  ])("%s", (_, list, literal, hasRefs) => {
    const enc = encodeBlockList(encodeHashes(list), o.locate(list), o.info);
    expect(enc.literal.byteLength / 8).toBe(literal);
    expect(enc.refs !== null).toBe(hasRefs);
    expect(decodeHashes(decodeBlockList(enc.literal, enc.refs, o.origin))).toEqual(list);
    const runs = enc.literalRuns;
    const fromRuns = runs.flatMap((first, k) => (k % 2 === 0 ? list.slice(first, first + runs[k + 1]!) : []));
    expect(fromRuns).toEqual(decodeHashes(enc.literal));
    for (let k = 2; k < runs.length; k += 2) expect(runs[k]!).toBeGreaterThan(runs[k - 2]! + runs[k - 1]!);
  });

  it.each([
    ["is another row now (another time)", origins({ 7: base }, () => 99).info],
    ["holds fewer hashes than the run", origins({ 7: base.slice(0, 5) }).info],
    ["is gone", () => null],
  ])("keeps a run literal when the origin %s", (_, info) => {
    const list = base.slice(0, 10);
    const enc = encodeBlockList(encodeHashes(list), o.locate(list), info);
    expect(enc.refs).toBeNull();
    expect(decodeHashes(enc.literal)).toEqual(list);
  });

  it("drops a reference whose origin is gone or changed, keeping the rest of the list", () => {
    const list = [...words(9_000, 2), ...base.slice(0, 10), ...words(9_100, 1)];
    const enc = encodeBlockList(encodeHashes(list), o.locate(list), o.info);
    expect(decodeHashes(decodeBlockList(enc.literal, enc.refs, () => null))).toEqual([
      ...words(9_000, 2),
      ...words(9_100, 1),
    ]);
    const changed = origins({ 7: words(70_000, 40) });
    expect(decodeHashes(decodeBlockList(enc.literal, enc.refs, changed.origin))).toEqual([
      ...words(9_000, 2),
      ...words(9_100, 1),
    ]);
  });

  it.each([
    ["a program cut inside a number", Buffer.from([0x80])],
    ["a program naming more literal hashes than stored", Buffer.from([5, 0])],
    ["a program that skips stored literal hashes", Buffer.from([0, 0])],
  ])("refuses %s", (_, refs) => {
    expect(() => decodeBlockList(encodeHashes(words(0, 2)), refs, () => null)).toThrow(/KV block list/);
  });
});
