import { describe, expect, it } from "vitest";
import { contentId } from "./hashing";
import { buildPrefix, HashView, SEG_CONVERSATION, SEG_SYSTEM, SEG_TOOLS, TokenStream } from "./stream";

const prefix = () =>
  buildPrefix(64, [
    [contentId(1, 1), 20_000, SEG_SYSTEM],
    [contentId(1, 2), 10_000, SEG_TOOLS],
  ]);

describe("TokenStream", () => {
  it("packs parts into full blocks and keeps the tail open", () => {
    const s = new TokenStream(64);
    s.append(11, 100, SEG_SYSTEM);
    expect(s.contents.length).toBe(1);
    expect(s.tokens).toBe(100);
    s.append(12, 28, SEG_CONVERSATION);
    expect(s.contents.length).toBe(2);
    expect(s.segments).toEqual([SEG_SYSTEM, SEG_SYSTEM]);
    s.append(13, 64, SEG_CONVERSATION);
    expect(s.segments).toEqual([SEG_SYSTEM, SEG_SYSTEM, SEG_CONVERSATION]);
  });

  it("gives two sessions with the same prefix the same blocks until they diverge", () => {
    const p = prefix();
    const a = p.stream.clone();
    const b = p.stream.clone();
    a.append(100, 500, SEG_CONVERSATION);
    b.append(200, 500, SEG_CONVERSATION);
    const shared = Math.floor(30_000 / 64);
    expect(a.contents.slice(0, shared)).toEqual(b.contents.slice(0, shared));
    expect(a.contents[shared]).not.toBe(b.contents[shared]);
  });
});

describe("HashView", () => {
  it("a billing header in block 0 changes every sequence hash but no later local hash", () => {
    const p = prefix();
    const stream = p.stream.clone();
    stream.append(300, 1_000, SEG_CONVERSATION);
    const stripped = p.view.clone();
    stripped.extend(stream, p.view);
    const headed = new HashView(contentId(9, 9));
    headed.extend(stream, p.view);
    expect(headed.seq.length).toBe(stripped.seq.length);
    expect(headed.seq.every((h, i) => h !== stripped.seq[i])).toBe(true);
    expect(headed.local[0]).not.toBe(stripped.local[0]);
    expect(headed.local.slice(1)).toEqual(stripped.local.slice(1));
  });

  it("extends incrementally to the same hashes as a fresh computation", () => {
    const p = prefix();
    const stream = p.stream.clone();
    const view = p.view.clone();
    stream.append(1, 3_000, SEG_CONVERSATION);
    view.extend(stream);
    stream.append(2, 3_000, SEG_CONVERSATION);
    view.extend(stream);
    const fresh = new HashView(null);
    fresh.extend(stream);
    expect(view.seq).toEqual(fresh.seq);
    expect(view.local).toEqual(fresh.local);
    expect(view.seq.every((h) => /^\d{1,20}$/.test(h) && BigInt(h) < 2n ** 64n)).toBe(true);
  });

  it("keeps hashes, cached entry ids and output words as it grows block by block, cloned or not", () => {
    const stream = new TokenStream(16);
    const view = new HashView(null);
    let clone: HashView | null = null;
    for (let k = 0; k < 300; k++) {
      stream.append(1_000 + k, 16, SEG_CONVERSATION);
      view.extend(stream);
      // The prefix index writes the ids it finds; growth must carry them over.
      view.ids[k] = 7 * k;
      if (k === 100) clone = view.clone();
      clone?.extend(stream);
    }
    const fresh = new HashView(null);
    fresh.extend(stream);
    expect(view.length).toBe(300);
    expect(Array.from(view.ids.subarray(0, 300))).toEqual(Array.from({ length: 300 }, (_, k) => 7 * k));
    expect(clone!.length).toBe(300);
    expect(Array.from(clone!.ids.subarray(0, 101))).toEqual(Array.from({ length: 101 }, (_, k) => 7 * k));
    expect(Array.from(clone!.ids.subarray(101, 300)).every((id) => id === -1)).toBe(true);
    for (const v of [view, clone!]) {
      expect(v.seq).toEqual(fresh.seq);
      expect(v.local).toEqual(fresh.local);
      expect(Array.from(v.words.subarray(0, 600))).toEqual(
        fresh.seq.flatMap((h) => [Number(BigInt(h) >> 32n), Number(BigInt(h) & 0xffffffffn)]),
      );
    }
  });
});
