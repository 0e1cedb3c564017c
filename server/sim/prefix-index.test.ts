import { describe, expect, it } from "vitest";
import { hashKey, hashList, PrefixIndex } from "./prefix-index";

describe("hashKey", () => {
  it.each([
    ["0", 0, 0],
    ["4294967296", 1, 0],
    ["18446744073709551615", 0xffffffff, 0xffffffff],
    ["9223372036854775808", 0x80000000, 0],
  ])("splits the u64 decimal %s into its halves", (hash, hi, lo) => {
    expect(hashKey(hash)).toEqual([hi, lo]);
  });
});

describe("PrefixIndex", () => {
  it("finds every entry after growth, and forgets swept ones while keeping the rest", () => {
    const index = new PrefixIndex();
    const n = 400_000;
    const list = hashList(Array.from({ length: n }, (_, i) => `h${i}`));
    for (let i = 0; i < n; i++) index.add(index.ensureAt(list, i), 1, 0, i);
    expect(index.size).toBe(n);
    // Drop three entries in four: once idle entries outnumber live ones twice (and 2^18) a sweep deletes them.
    const kept = (i: number) => i % 4 === 0;
    for (let i = 0; i < n; i++) if (!kept(i)) index.drop(list.ids[i]!, 1);
    const fresh = hashList(list.seq);
    // Mismatches are counted, not asserted one by one: 400,000 expect() calls cost seconds.
    let found = 0;
    const wrongBlock: number[] = [];
    for (let i = 0; i < n; i++) {
      const id = index.idAt(fresh, i);
      if (kept(i) && index.blockAt(id, 0) !== i) wrongBlock.push(i);
      if (id >= 0) found++;
    }
    expect(wrongBlock.slice(0, 5)).toEqual([]);
    expect(index.size).toBe(n / 4);
    expect(found).toBeGreaterThanOrEqual(n / 4);
    expect(found).toBeLessThan(n);
    // Cached ids of swept entries are not trusted, even before their ids are reused.
    let stale = 0;
    for (let i = 0; i < n; i++) if (!kept(i) && index.idAt(list, i) >= 0 && index.maskOf(list.seq[i]!) === 0) stale++;
    expect(stale).toBe(found - n / 4);
    // Re-adding reuses swept ids and every hash still resolves to its own entry.
    for (let i = 0; i < n; i++) if (!kept(i)) index.add(index.ensureAt(list, i), 2, 1, i);
    const wrongHash: number[] = [];
    for (let i = 0; i < n; i++) if (index.hashOf(index.lookup(list.seq[i]!)) !== list.seq[i]) wrongHash.push(i);
    expect(wrongHash.slice(0, 5)).toEqual([]);
    expect(index.size).toBe(n);
  });

  it("keeps a list's own blocks (uniqueFrom) out of its table: the same ids and answers through the list, none by string", () => {
    // Two indexes fed the same steps, one told that blocks from 1,000 on are the list's own: every id handed out,
    // every lookup through the list and every sweep answer alike. 300,000 blocks: idle entries pass 2^18, so sweeps run.
    const n = 300_000;
    const own = 1_000;
    const seq = Array.from({ length: n }, (_, i) => `h${i}`);
    const plain = { index: new PrefixIndex(), list: hashList(seq) };
    const told = { index: new PrefixIndex(), list: { ...hashList(seq), uniqueFrom: own } };
    const differ: string[] = [];
    const both = (step: string, f: (x: typeof plain) => number) => {
      const a = f(plain);
      const b = f(told);
      if (a !== b && differ.length < 5) differ.push(`${step}: ${a} / ${b}`);
    };
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < n; i++)
        both(`store ${round} ${i}`, ({ index, list }) => {
          const id = index.ensureAt(list, i);
          if ((index.maskAt(id) & 1) === 0) index.add(id, 1, 0, i);
          return id;
        });
      // Drop most blocks again (the first rounds keep every third), then look each one up through the list.
      for (let i = 0; i < n; i++)
        if (round === 2 || i % 3 !== 0) both(`drop ${i}`, ({ index, list }) => (index.drop(list.ids[i]!, 1), 0));
      for (let i = 0; i < n; i++) both(`find ${round} ${i}`, ({ index, list }) => index.idAt(list, i));
    }
    expect(differ).toEqual([]);
    expect(told.index.size).toBe(plain.index.size);
    // By string, the list's own blocks are not found; the others are.
    const again = (x: typeof plain) => {
      for (let i = 0; i < n; i++) x.index.add(x.index.ensureAt(x.list, i), 1, 0, i);
    };
    again(plain);
    again(told);
    expect(told.index.lookup(seq[own - 1]!)).toBe(plain.index.lookup(seq[own - 1]!));
    expect(told.index.lookup(seq[own]!)).toBe(-1);
    expect(plain.index.lookup(seq[own]!)).toBe(told.list.ids[own]);
  });
});
