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
});
