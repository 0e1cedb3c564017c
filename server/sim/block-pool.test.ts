import { describe, expect, it } from "vitest";
import {
  BlockPool,
  EVICT_AGENT_END,
  EVICT_NEVER,
  EVICT_SESSION_END,
  OwnedBlocks,
  type RetentionClass,
} from "./block-pool";
import { BlockList } from "./block-list";
import { hashList, PrefixIndex } from "./prefix-index";

const cls = (name: string, priority: number, extra: Partial<RetentionClass> = {}): RetentionClass => ({
  name,
  priority,
  ttlMs: 0,
  pin: false,
  evictOn: EVICT_NEVER,
  ...extra,
});
const list = (prefix: string, n: number) => hashList(Array.from({ length: n }, (_, i) => `${prefix}${i}`));

/** Store all blocks of a list as one request, then release them. */
function cache(
  pool: BlockPool,
  l: ReturnType<typeof list>,
  c: RetentionClass,
  now = 0,
  owned = new OwnedBlocks(),
): BlockList {
  const blocks = new BlockList();
  const matched = pool.acquirePrefix(l, l.seq.length, [c], new Array(l.seq.length).fill(0), blocks);
  pool.makeRoom(l.seq.length - matched);
  pool.store(l, matched, l.seq.length, [c], new Array(l.seq.length).fill(0), blocks, [], owned);
  pool.release(blocks, now);
  return blocks;
}

describe("BlockPool", () => {
  it("matches leading blocks and reports them to the prefix index", () => {
    const index = new PrefixIndex();
    const a = new BlockPool(100, index, 0);
    const b = new BlockPool(100, index, 3);
    cache(a, list("x", 10), cls("c", 50));
    cache(b, list("x", 4), cls("c", 50));
    expect(a.match(list("x", 12).seq, 12)).toBe(10);
    expect(b.match(list("x", 12).seq, 12)).toBe(4);
    const out = new Array(32).fill(-1);
    index.overlaps(list("x", 12), 12, a.bit | b.bit, out);
    expect(out[0]).toBe(10);
    expect(out[3]).toBe(4);
    expect(a.cached).toBe(10);
  });

  it("evicts the lowest retention priority first, then the least recently used", () => {
    const pool = new BlockPool(6, new PrefixIndex(), 0);
    cache(pool, list("sys", 2), cls("keep-system-prompt", 90), 1);
    cache(pool, list("old", 2), cls("conversation", 50), 2);
    cache(pool, list("new", 2), cls("conversation", 50), 3);
    expect(pool.makeRoom(3)).toBe(true);
    const removed = pool.drainRemoved();
    expect(removed).toEqual([["capacity", ["old1", "old0", "new1"]]]);
    expect(pool.match(["sys0", "sys1"], 2)).toBe(2);
  });

  it("never evicts referenced blocks and refuses room it cannot make", () => {
    const pool = new BlockPool(4, new PrefixIndex(), 0);
    const l = list("a", 4);
    const held = new BlockList();
    pool.store(l, 0, 4, [cls("c", 0)], [0, 0, 0, 0], held, [], new OwnedBlocks());
    expect(pool.active).toBe(4);
    expect(pool.makeRoom(1)).toBe(false);
    pool.release(held, 1);
    expect(pool.active).toBe(0);
    expect(pool.makeRoom(1)).toBe(true);
  });

  it("keeps pinned blocks under pressure", () => {
    const pool = new BlockPool(4, new PrefixIndex(), 0);
    cache(pool, list("pin", 2), cls("pinned", 0, { pin: true }), 1);
    cache(pool, list("c", 2), cls("conversation", 50), 2);
    expect(pool.makeRoom(2)).toBe(true);
    expect(pool.match(["pin0", "pin1"], 2)).toBe(2);
    expect(pool.makeRoom(3)).toBe(false);
  });

  it("gives a cached block the class of the last request that used it (priority, pin, TTL, lifecycle)", () => {
    const low = cls("low", 10);
    const high = cls("high", 90);
    const twinOfLow = cls("low", 10);
    const pinned = cls("pinned", 0, { pin: true });
    const ttl = cls("ttl", 50, { ttlMs: 1_000 });
    const agent = cls("agent", 50, { evictOn: EVICT_AGENT_END });
    // [first class, class of the second use, what survives makeRoom(2) beside "other" (priority 50), TTL removals at 2 s, agent_end removals]
    const cases: [RetentionClass, RetentionClass, string[], string[], string[]][] = [
      [low, high, ["b0", "b1"], [], []],
      [high, low, ["other0", "other1"], [], []],
      [low, twinOfLow, ["other0", "other1"], [], []],
      [low, pinned, ["b0", "b1"], [], []],
      [pinned, low, ["other0", "other1"], [], []],
      [low, ttl, [], ["b1", "b0"], []],
      [ttl, low, [], [], []],
      [low, agent, [], [], ["b0", "b1"]],
    ];
    for (const [first, second, survivors, expired, ended] of cases) {
      const pool = new BlockPool(4, new PrefixIndex(), 0);
      const owned = new OwnedBlocks();
      const b = list("b", 2);
      cache(pool, b, first, 0, owned);
      cache(pool, list("other", 2), cls("other", 50), 0);
      cache(pool, b, second, 0);
      expect(pool.classOf("b0")).toBe(second);
      if (survivors.length) {
        expect(pool.makeRoom(2)).toBe(true);
        pool.drainRemoved();
        const kept = ["b0", "b1", "other0", "other1"].filter((h) => pool.match([h], 1) === 1);
        expect(kept).toEqual(survivors);
        continue;
      }
      pool.expire(2_000);
      expect(pool.drainRemoved()).toEqual(expired.length ? [["ttl", expired]] : []);
      for (const ref of owned.refs.subarray(0, owned.length)) pool.evictOnEnd(ref, "agent_end");
      expect(pool.drainRemoved()).toEqual(ended.length ? [["agent_end", ended]] : []);
    }
  });

  it("expires unreferenced blocks after their TTL, counted from the last use", () => {
    const pool = new BlockPool(10, new PrefixIndex(), 0);
    const l = list("t", 2);
    cache(pool, l, cls("short", 50, { ttlMs: 1_000 }), 0);
    cache(pool, l, cls("short", 50, { ttlMs: 1_000 }), 800);
    pool.expire(1_500);
    expect(pool.cached).toBe(2);
    pool.expire(1_800);
    expect(pool.cached).toBe(0);
    expect(pool.drainRemoved()).toEqual([["ttl", ["t1", "t0"]]]);
  });

  it("evicts on agent end or session end only blocks whose class says so", () => {
    const pool = new BlockPool(10, new PrefixIndex(), 0);
    const owned = new OwnedBlocks();
    cache(pool, list("sub", 2), cls("subagent_state", 50, { evictOn: EVICT_AGENT_END }), 0, owned);
    cache(pool, list("conv", 2), cls("conversation", 50, { evictOn: EVICT_SESSION_END }), 0, owned);
    cache(pool, list("sys", 2), cls("system_prompt", 50), 0, owned);
    for (const ref of owned.refs.subarray(0, owned.length)) pool.evictOnEnd(ref, "agent_end");
    expect(pool.drainRemoved()).toEqual([["agent_end", ["sub0", "sub1"]]]);
    for (const ref of owned.refs.subarray(0, owned.length)) pool.evictOnEnd(ref, "session_end");
    expect(pool.drainRemoved()).toEqual([["session_end", ["conv0", "conv1"]]]);
    expect(pool.cached).toBe(2);
  });

  it("does not evict a reused slot through a stale owned reference", () => {
    const pool = new BlockPool(2, new PrefixIndex(), 0);
    const owned = new OwnedBlocks();
    cache(pool, list("a", 2), cls("c", 50, { evictOn: EVICT_AGENT_END }), 0, owned);
    cache(pool, list("b", 2), cls("c", 50, { evictOn: EVICT_AGENT_END }), 1);
    pool.drainRemoved();
    for (const ref of owned.refs.subarray(0, owned.length)) expect(pool.evictOnEnd(ref, "agent_end")).toBe(false);
    expect(pool.cached).toBe(2);
  });

  // A block's priority, TTL flag and list membership share one int32 of its record: each case checks that an eviction
  // takes exactly the blocks the lists should hold, in order, after TTL-class releases and class changes.
  it.each([
    {
      name: "TTL-class blocks released stay evictable for capacity, each once",
      steps: (p: BlockPool) => {
        cache(p, list("t", 3), cls("ttl", 50, { ttlMs: 60_000 }), 1);
        cache(p, list("c", 2), cls("c", 50), 2);
      },
      room: 5,
      removed: ["t2", "t1", "t0", "c1", "c0"],
    },
    {
      name: "a block re-used under a class of higher priority moves to that class's list",
      steps: (p: BlockPool) => {
        cache(p, list("a", 2), cls("low", 10), 1);
        cache(p, list("b", 2), cls("mid", 50), 2);
        cache(p, list("a", 2), cls("high", 90, { ttlMs: 1_000 }), 3);
      },
      room: 5,
      removed: ["b1", "b0", "a1", "a0"],
    },
    {
      name: "a TTL block touched again before its TTL is unlinked once and relinked once",
      steps: (p: BlockPool) => {
        const c = cls("ttl", 50, { ttlMs: 60_000 });
        cache(p, list("t", 2), c, 1);
        cache(p, list("t", 2), c, 2);
        cache(p, list("u", 2), cls("u", 50), 3);
      },
      room: 5,
      removed: ["t1", "t0", "u1", "u0"],
    },
  ])("$name", ({ steps, room, removed }) => {
    const pool = new BlockPool(5, new PrefixIndex(), 0);
    steps(pool);
    const cached = pool.cached;
    expect(pool.makeRoom(room)).toBe(true);
    expect(pool.drainRemoved()).toEqual([["capacity", removed]]);
    expect(pool.cached).toBe(cached - removed.length);
    expect(pool.spare).toBe(5);
  });

  it("counts references to a block past 16 bits (its count shares a word with its flags and priority)", () => {
    const pool = new BlockPool(2, new PrefixIndex(), 0);
    const c = cls("c", 100, { ttlMs: 1_000 });
    const l = list("r", 1);
    const held = cache(pool, l, c, 0);
    for (let i = 0; i < 70_000; i++) pool.acquirePrefix(l, 1, [c], [0], new BlockList());
    expect(pool.active).toBe(1);
    for (let i = 0; i < 69_999; i++) pool.release(held, 1);
    expect(pool.makeRoom(2)).toBe(false);
    pool.release(held, 2);
    expect(pool.active).toBe(0);
    expect(pool.makeRoom(2)).toBe(true);
    expect(pool.drainRemoved()).toEqual([["capacity", ["r0"]]]);
  });

  it("refuses a room larger than the pool without touching the lists", () => {
    const pool = new BlockPool(3, new PrefixIndex(), 0);
    cache(pool, list("x", 3), cls("c", 50, { ttlMs: 10 }), 1);
    expect(pool.makeRoom(4)).toBe(false);
    expect(pool.drainRemoved()).toEqual([]);
    expect(pool.spare).toBe(3);
  });

  it("clears everything and leaves the index", () => {
    const index = new PrefixIndex();
    const pool = new BlockPool(10, index, 1);
    cache(pool, list("z", 5), cls("c", 50));
    expect(index.size).toBe(5);
    expect(pool.clear()).toBe(5);
    expect(index.size).toBe(0);
    expect(pool.match(list("z", 5).seq, 5)).toBe(0);
  });
});
