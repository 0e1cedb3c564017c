import { describe, expect, it } from "vitest";
import { TierPool } from "./tier-pool";

// A lower tier drops expired blocks first, then the lowest priority, least recently used first; it never drops a
// block of higher priority to make room for a lower one.

type Op = ["put", string, number, number?, number?] | ["touch", string] | ["expire", number];

function run(capacity: number, ops: Op[], now = 0) {
  const pool = new TierPool("host", capacity);
  const refused: string[] = [];
  for (const op of ops) {
    if (op[0] === "put") {
      if (!pool.put(op[1], op[2], op[3] ?? 0, op[4] ?? now, "w1")) refused.push(op[1]);
    } else if (op[0] === "touch") pool.touch(op[1]);
    else pool.expire(op[1]);
  }
  const moves = pool.drain();
  return {
    held: ["a", "b", "c", "d", "e"].filter((h) => pool.has(h, 0)),
    refused,
    capacity: moves?.removed.get("w1")?.capacity ?? [],
    ttl: moves?.removed.get("w1")?.ttl ?? [],
    stored: moves?.stored.get("w1") ?? [],
  };
}

describe("TierPool", () => {
  it.each<[string, number, Op[], Partial<ReturnType<typeof run>>]>([
    [
      "keeps what fits",
      3,
      [
        ["put", "a", 50],
        ["put", "b", 50],
      ],
      { held: ["a", "b"], stored: ["a", "b"] },
    ],
    [
      "drops the least recently used of the lowest priority",
      2,
      [
        ["put", "a", 50],
        ["put", "b", 10],
        ["put", "c", 50],
      ],
      { held: ["a", "c"], capacity: ["b"] },
    ],
    [
      "LRU within a priority: a touch keeps a block",
      2,
      [
        ["put", "a", 50],
        ["put", "b", 50],
        ["touch", "a"],
        ["put", "c", 50],
      ],
      { held: ["a", "c"], capacity: ["b"] },
    ],
    [
      "refuses a block when only higher priorities are held",
      2,
      [
        ["put", "a", 90],
        ["put", "b", 90],
        ["put", "c", 10],
      ],
      { held: ["a", "b"], refused: ["c"], capacity: [] },
    ],
    [
      "expired blocks go first, whatever their priority",
      2,
      [
        ["put", "a", 90, 1_000, 0],
        ["put", "b", 10, 0, 0],
        ["put", "c", 10, 0, 5_000],
      ],
      { held: ["b", "c"], ttl: ["a"], capacity: [] },
    ],
    [
      "TTL expiry on a tick",
      3,
      [
        ["put", "a", 50, 1_000, 0],
        ["put", "b", 50, 3_000, 0],
        ["expire", 2_000],
      ],
      { held: ["b"], ttl: ["a"] },
    ],
    [
      "a block stored again is refreshed, not reported twice",
      2,
      [
        ["put", "a", 50],
        ["put", "a", 60],
      ],
      { held: ["a"], stored: ["a"] },
    ],
  ])("%s", (_name, capacity, ops, expected) => {
    expect(run(capacity, ops)).toMatchObject(expected);
  });

  it.each([0, -5, 1.5])("refuses a capacity of %d blocks", (n) => {
    expect(() => new TierPool("disk", n)).toThrow("capacity must be a positive whole number");
  });

  it("drops a worker's blocks when it leaves and reports nothing for them", () => {
    const pool = new TierPool("shared", 10);
    pool.put("a", 50, 0, 0, "w1");
    pool.put("b", 50, 0, 0, "w2");
    expect(pool.dropOwner("w1")).toEqual(["a"]);
    expect(pool.has("a", 0)).toBe(false);
    expect(pool.has("b", 0)).toBe(true);
    expect(pool.drain()?.stored.get("w1")).toBeUndefined();
  });

  it("keeps its expiry heap within twice its capacity (plus 1,024) while blocks are refreshed under a long TTL", () => {
    const pool = new TierPool("host", 10);
    const heap = () => (pool as unknown as { heapT: number[] }).heapT.length;
    let peak = 0;
    for (let i = 0; i < 20_000; i++) {
      pool.put(`h${i % 10}`, 50, 86_400_000, i, "w1");
      peak = Math.max(peak, heap());
    }
    expect(peak).toBeLessThanOrEqual(2 * 10 + 1024 + 1);
    // What it holds still expires when its time comes.
    pool.expire(20_000 + 86_400_000);
    expect(pool.size).toBe(0);
  });
});
