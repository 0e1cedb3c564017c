import { describe, expect, it } from "vitest";
import { RecentRows } from "./kv-recent";

const words = (n: number, fill: number) => Buffer.alloc(n * 8, fill);

describe("recent KV rows", () => {
  it("keeps the newest rows within the row bound, whatever their bytes", () => {
    const r = new RecentRows(1 << 20, 3);
    for (let rowid = 1; rowid <= 5; rowid++) r.remember(rowid, words(2, rowid));
    expect([1, 2, 3, 4, 5].map((id) => r.get(id) !== undefined)).toEqual([false, false, true, true, true]);
  });

  it("keeps the newest rows within the byte bound, whatever their count", () => {
    const r = new RecentRows(64, 1_000);
    for (let rowid = 1; rowid <= 4; rowid++) r.remember(rowid, words(3, rowid)); // 24 bytes each
    expect([1, 2, 3, 4].map((id) => r.get(id) !== undefined)).toEqual([false, false, true, true]);
  });

  it("reads back a kept row's words from the ring", () => {
    const r = new RecentRows(1 << 10, 10);
    r.remember(7, words(2, 0xab));
    const at = r.get(7)!;
    expect(at.words).toBe(4);
    expect([...new Uint8Array(r.ring!.buffer, at.at * 4, at.words * 4)].every((b) => b === 0xab)).toBe(true);
  });
});
