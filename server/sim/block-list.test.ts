import { describe, expect, it } from "vitest";
import { BlockList, SPARES_PER_CLASS } from "./block-list";

describe("BlockList", () => {
  it.each([
    { pushed: 0, reserve: 10, room: 64 },
    { pushed: 5, reserve: 1_000, room: 1_024 },
    { pushed: 100, reserve: 130, room: 256 },
    { pushed: 100, reserve: 50, room: 128 },
  ])("reserve($reserve) after $pushed pushes keeps them and makes room for $room", ({ pushed, reserve, room }) => {
    const list = new BlockList();
    for (let i = 0; i < pushed; i++) list.push(i * 3);
    list.reserve(reserve);
    expect(list.ids.length).toBe(room);
    expect(list.toArray()).toEqual(Array.from({ length: pushed }, (_, i) => i * 3));
    const ids = list.ids;
    while (list.length < reserve) list.push(7);
    expect(list.ids).toBe(ids);
  });

  it("hands a recycled array to the next list of its size, and keeps at most a bounded number waiting", () => {
    const a = new BlockList();
    a.reserve(3_000);
    const array = a.ids;
    for (let i = 0; i < 3_000; i++) a.push(i);
    a.recycle();
    expect(a.length).toBe(0);
    expect(a.ids.length).toBe(0);

    const b = new BlockList();
    b.reserve(2_500);
    expect(b.ids).toBe(array);
    expect(b.length).toBe(0);
    b.push(42);
    expect(b.toArray()).toEqual([42]);

    // Past the bound, recycled arrays are left to the garbage collector.
    const lists = Array.from({ length: SPARES_PER_CLASS + 4 }, () => {
      const l = new BlockList();
      l.reserve(100_000);
      return l;
    });
    const arrays = new Set(lists.map((l) => l.ids));
    expect(arrays.size).toBe(lists.length);
    for (const l of lists) l.recycle();
    const again = Array.from({ length: SPARES_PER_CLASS + 4 }, () => {
      const l = new BlockList();
      l.reserve(100_000);
      return l.ids;
    });
    expect(again.filter((ids) => arrays.has(ids)).length).toBe(SPARES_PER_CLASS);
  });
});
