import { describe, expect, it } from "vitest";
import type { SimRequest } from "../sim/types";
import type { TelemetryEventInput } from "../ingest/events";
import { makeSim, T0 } from "../sim/test-support";
import { COLLECTED_KINDS, RunCollector } from "./collector";
import type { RecordedTurn } from "./types";

// The replay's miss causes, block by block: a missed block the replay never saw is cold, one whose content was seen
// after another prefix is diverged, one seen and gone is evicted, and of those, as many as the best candidate held
// beyond the chosen worker are routed away. Turns before the window are sent (their blocks count as seen) but not
// counted.

const BS = 16;
const FROM = 1_000;
const TO = 10_000;

type View = { words: Uint32Array; uniqueFrom: number };
/**
 * A view of n blocks, block k with sequence hash (seed, k + 1); contents are given to `sent` beside it. Its blocks
 * from `uniqueFrom` on are its own (no other view holds their hashes; none by default).
 */
const view = (seed: number, n: number, uniqueFrom = Infinity): View => ({
  words: Uint32Array.from({ length: 2 * n }, (_, i) => (i % 2 === 0 ? seed : i / 2 + 0.5)),
  uniqueFrom,
});

function request(id: string, v: View, cachedBlocks: number, arrivedAt = FROM): SimRequest {
  const n = v.words.length / 2;
  return {
    id,
    view: v,
    nBlocks: n,
    arrivedAt,
    inputTokens: n * BS,
    cachedTokens: cachedBlocks * BS,
    firstTokenAt: arrivedAt + 100,
    finishReason: "stop",
  } as unknown as SimRequest;
}

function collector(turns: number): RunCollector {
  const recorded = Array.from({ length: turns }, () => ({ status: "ok" }) as RecordedTurn);
  return new RunCollector(recorded, BS, FROM, TO, { workers: [] });
}

describe("RunCollector's miss causes", () => {
  it("counts a first turn's misses as cold, and a later turn's misses of blocks it sent before as evicted", () => {
    const c = collector(2);
    const v = view(7, 3);
    const first = request("a1", v, 0);
    c.sent(0, first, [101, 102, 103]);
    c.done(0, first);
    // The trajectory's next turn extends the same view by two blocks; only its first block is still cached.
    v.words = Uint32Array.from([...v.words, 7, 4, 7, 5]);
    const second = request("a2", v, 1, FROM + 10);
    c.sent(1, second, [101, 102, 103, 104, 105]);
    c.done(1, second);
    expect(c.summary(TO).recomputed_by_cause).toEqual({
      cold: 3 * BS + 2 * BS,
      diverged: 0,
      evicted: 2 * BS,
      routed_away: 0,
    });
    expect(c.summary(TO).hit_rate).toBeCloseTo(BS / (8 * BS));
  });

  it("counts content seen after another prefix as diverged, and partial last blocks by their tokens", () => {
    const c = collector(2);
    const a = request("a1", view(1, 2), 0);
    c.sent(0, a, [11, 12]);
    c.done(0, a);
    // Another trajectory: block 0 the same content after another prefix (a new sequence hash), block 1 new.
    const b = request("b1", view(2, 2), 0);
    c.sent(1, b, [11, 99]);
    (b as { inputTokens: number }).inputTokens = BS + 5;
    c.done(1, b);
    expect(c.summary(TO).recomputed_by_cause).toEqual({ cold: 2 * BS + 5, diverged: BS, evicted: 0, routed_away: 0 });
  });

  it("charts the best candidate's extra overlap as routed away, at most the evicted blocks", () => {
    const c = collector(2);
    const v = view(3, 4);
    const first = request("a1", v, 0);
    c.sent(0, first, [1, 2, 3, 4]);
    c.done(0, first);
    const second = request("a2", v, 0, FROM + 10);
    c.sent(1, second, [1, 2, 3, 4]);
    c.event({
      kind: "route.decision",
      request_id: "a2",
      chosen_worker_id: "w1",
      candidates: [
        { worker_id: "w1", overlap_blocks: 0 },
        { worker_id: "w2", overlap_blocks: 3 },
      ],
    } as never);
    c.done(1, second);
    expect(c.summary(TO).recomputed_by_cause).toEqual({ cold: 4 * BS, diverged: 0, evicted: BS, routed_away: 3 * BS });
  });

  it("sends warm-up turns before the window without counting them", () => {
    const c = collector(2);
    const v = view(4, 2);
    const warm = request("w1", v, 0, FROM - 500);
    c.sent(0, warm, [1, 2]);
    c.done(0, warm);
    const inWindow = request("w2", v, 0, FROM + 1);
    c.sent(1, inWindow, [1, 2]);
    c.done(1, inWindow);
    const s = c.summary(TO);
    expect(s.requests).toBe(1);
    expect(s.recomputed_by_cause).toEqual({ cold: 0, diverged: 0, evicted: 2 * BS, routed_away: 0 });
    expect(Array.from(c.cachedOf)).toEqual([-1, 0]);
  });

  it("answers as looking every block up when told which blocks are a view's own and which contents are lone", () => {
    // Three views: b starts with a's two blocks, then its own; c is all its own. Content 11 is in all three (at
    // another prefix in c), 12 and 13 in two, the others once.
    const shapes = [
      {
        seqs: [
          [1, 1],
          [1, 2],
          [1, 3],
          [1, 4],
        ],
        contents: [11, 12, 13, 14],
        own: 2,
      },
      {
        seqs: [
          [1, 1],
          [1, 2],
          [2, 3],
          [2, 4],
        ],
        contents: [11, 12, 99, 13],
        own: 2,
      },
      {
        seqs: [
          [3, 1],
          [3, 2],
          [3, 3],
          [3, 4],
        ],
        contents: [50, 11, 51, 52],
        own: 0,
      },
    ];
    const counts = new Map<number, number>();
    for (const sh of shapes) for (const ct of sh.contents) counts.set(ct, (counts.get(ct) ?? 0) + 1);
    const run = (told: boolean) => {
      const c = collector(shapes.length);
      shapes.forEach((sh, t) => {
        const v: View = { words: Uint32Array.from(sh.seqs.flatMap((x) => [x[0]!, x[1]!])), uniqueFrom: Infinity };
        if (told) v.uniqueFrom = sh.own;
        const lone = told ? Uint8Array.from(sh.contents, (ct) => (counts.get(ct) === 1 ? 1 : 0)) : null;
        const r = request(`r${t}`, v, 0, FROM + t);
        c.sent(t, r, sh.contents, 0, lone);
        c.done(t, r);
      });
      return c.summary(TO).recomputed_by_cause;
    };
    expect(run(true)).toEqual(run(false));
    expect(run(false)).toEqual({ cold: 8 * BS, diverged: 2 * BS, evicted: 2 * BS, routed_away: 0 });
  });
});

describe("RunCollector fed only the kinds it reads", () => {
  it("counts evictions by class and reason (told as counts, not events), KV use and planner decisions as when fed every event", () => {
    const summaryOf = (kinds?: readonly TelemetryEventInput["kind"][]) => {
      const { sim } = makeSim({ scenario: "steady" });
      const c = new RunCollector([], BS, T0 + 60_000, T0 + 300_000, sim.cluster);
      sim.setSink((e) => c.event(e), kinds && [...kinds]);
      if (kinds) sim.onRemovals = (w, ts, counts) => c.removals(w, ts, counts);
      sim.runUntil(T0 + 300_000);
      return c.summary(T0 + 300_000);
    };
    const all = summaryOf();
    const some = summaryOf(COLLECTED_KINDS);
    expect(Object.values(all.evictions_by_class).reduce((a, b) => a + b, 0)).toBeGreaterThan(1_000);
    expect(some).toEqual(all);
  });
});
