import { describe, expect, it } from "vitest";
import type { RecordedTurn } from "../../preview/types";
import { bruteForceLru } from "./lru-oracle";
import { curveOptionsFor, missRatioCurves } from "./mrc";
import { generateTrace, turnOf } from "./test-support";
import { CAPACITY_CLASSES } from "./window-turns";

const chain = (...names: string[]) => Uint32Array.from(names.flatMap((n) => [n.charCodeAt(0), n.length]));

function curves(turns: RecordedTurn[], maxBlocks: number, workers = 1) {
  const r = missRatioCurves({ turns }, { maxBlocks, workers, points: maxBlocks });
  if (r.empty) throw new Error(r.empty);
  return r;
}

describe("missRatioCurves by hand", () => {
  it.each([
    {
      name: "two turns sharing 3 blocks",
      turns: [
        turnOf({ arrivedAt: 1, blocks: chain("a", "b", "c", "d") }),
        turnOf({ arrivedAt: 2, blocks: chain("a", "b", "c", "e", "f") }),
      ],
      hits: [0, 16, 32, 48, 48, 48, 48],
      input: 144,
    },
    {
      name: "the first turn as warm-up (warms, not counted)",
      turns: [
        turnOf({ arrivedAt: 1, blocks: chain("a", "b", "c", "d"), phase: "warmup" }),
        turnOf({ arrivedAt: 2, blocks: chain("a", "b", "c", "e", "f") }),
      ],
      hits: [0, 16, 32, 48, 48, 48, 48],
      input: 80,
    },
    {
      name: "another chain in between pushes the first one down",
      turns: [
        turnOf({ arrivedAt: 1, blocks: chain("a", "b", "c", "d") }),
        turnOf({ arrivedAt: 2, blocks: chain("x", "y"), trajectoryId: "u" }),
        turnOf({ arrivedAt: 3, blocks: chain("a", "b", "c", "d") }),
      ],
      hits: [0, 0, 0, 16, 32, 48, 64],
      input: 160,
    },
    {
      name: "a partial last block and a prompt shorter than its chain",
      turns: [
        turnOf({ arrivedAt: 1, blocks: chain("a", "b", "c") }),
        turnOf({ arrivedAt: 2, blocks: chain("a", "b", "c"), inputTokens: 40 }),
      ],
      hits: [0, 16, 32, 40, 40, 40, 40],
      input: 88,
    },
    {
      name: "turns without a chain are misses; after-window turns are ignored",
      turns: [
        turnOf({ arrivedAt: 1, blocks: chain("a", "b") }),
        turnOf({ arrivedAt: 2, blocks: null, inputTokens: 100 }),
        turnOf({ arrivedAt: 3, blocks: chain("a", "b") }),
        turnOf({ arrivedAt: 4, blocks: chain("a", "b"), phase: "after" }),
      ],
      hits: [0, 16, 32, 32, 32, 32, 32],
      input: 164,
    },
    {
      name: "routed to two workers: the shared cache hits where the workers' miss",
      turns: [
        turnOf({ arrivedAt: 1, blocks: chain("a", "b"), workerId: "w1" }),
        turnOf({ arrivedAt: 2, blocks: chain("a", "b"), workerId: "w2" }),
      ],
      hits: [0, 0, 0, 0, 0, 0, 0],
      shared: [0, 16, 32, 32, 32, 32, 32],
      input: 64,
    },
  ])("$name", ({ turns, hits, input, ...rest }) => {
    const r = curves(turns, 6);
    expect(r.inputTokens).toBe(input);
    expect(r.perWorker.points.map((p) => p.hitTokens)).toEqual(hits);
    expect(r.shared.points.map((p) => p.hitTokens)).toEqual("shared" in rest ? rest.shared : hits);
    expect(r.perWorker.points.map((p) => p.hitRate)).toEqual(hits.map((h) => h / input));
  });

  it("unrouted turns miss per worker and count on the shared curve", () => {
    const turns = [
      turnOf({ arrivedAt: 1, blocks: chain("a", "b") }),
      turnOf({ arrivedAt: 2, blocks: chain("a", "b"), workerId: null }),
    ];
    const r = curves(turns, 4);
    expect(r.unroutedTurns).toBe(1);
    expect(r.perWorker.points.at(-1)!.hitTokens).toBe(0);
    expect(r.shared.points.at(-1)!.hitTokens).toBe(32);
  });
});

describe("missRatioCurves against a brute-force LRU at every size", () => {
  it.each([
    { seed: 1, trajectories: 12, turns: 8, workers: 3 },
    { seed: 2, trajectories: 20, turns: 6, workers: 2, openings: 2, openingBlocks: 10 },
    { seed: 3, trajectories: 8, turns: 15, workers: 4, growth: 8 },
    { seed: 4, trajectories: 30, turns: 4, workers: 1, openings: 5, openingBlocks: 3 },
    { seed: 5, trajectories: 15, turns: 10, workers: 5, blockSize: 64 },
  ])("seed $seed: $trajectories trajectories × $turns turns on $workers workers", (spec) => {
    const trace = generateTrace(spec);
    const window = { turns: trace.turns, firstRuns: trace.firstRuns };
    const r = missRatioCurves(window, { maxBlocks: 800, workers: 1, points: 800 });
    if (r.empty) throw new Error(r.empty);
    expect(r.distinctBlocks).toBeLessThan(800);
    const sizes = r.perWorker.points.map((p) => p.blocks);
    expect(sizes).toEqual(Array.from({ length: 801 }, (_, i) => i));
    for (const scope of ["worker", "shared"] as const) {
      const got = (scope === "worker" ? r.perWorker : r.shared).points;
      const want = bruteForceLru(window, scope, sizes);
      expect(got.map((p) => p.hitTokens)).toEqual(want.map((p) => p.hitTokens));
      expect(got.map((p) => CAPACITY_CLASSES.map((c) => p.byClass[c]))).toEqual(want.map((p) => p.byClass));
    }
    expect(r.shared.points.at(-1)!.hitTokens).toBeGreaterThan(0);
    expect(r.shared.points.at(-1)!.byClass.conversation).toBeGreaterThan(0);
    // Each worker's own curve is its cache over the turns routed to it; together they are the per-worker curve.
    expect(r.byWorker.map((w) => w.workerId)).toEqual(
      [
        ...new Set(trace.turns.filter((t) => t.phase === "window" && t.workerId !== null).map((t) => t.workerId!)),
      ].sort(),
    );
    for (const w of r.byWorker) {
      const own = { ...window, turns: trace.turns.filter((t) => t.workerId === w.workerId) };
      expect(w.curve.points.map((p) => p.hitTokens)).toEqual(
        bruteForceLru(own, "worker", sizes).map((p) => p.hitTokens),
      );
      const input = own.turns.filter((t) => t.phase === "window").reduce((a, t) => a + t.inputTokens, 0);
      expect(w.inputTokens).toBe(input);
      expect(w.curve.points.at(-1)!.hitRate).toBeCloseTo(w.curve.points.at(-1)!.hitTokens / input, 12);
    }
    sizes.forEach((_, j) =>
      expect(r.byWorker.reduce((a, w) => a + w.curve.points[j]!.hitTokens, 0)).toBe(r.perWorker.points[j]!.hitTokens),
    );
  });

  it.each([
    { seed: 1, trajectories: 12, turns: 8, workers: 3, size: 9 },
    { seed: 3, trajectories: 8, turns: 15, workers: 4, growth: 8, size: 25 },
    { seed: 7, trajectories: 40, turns: 10, workers: 2, size: 60 },
  ])("seed $seed: stacks cut at $size blocks stay exact up to that size", ({ size, ...spec }) => {
    const trace = generateTrace(spec);
    const window = { turns: trace.turns, firstRuns: trace.firstRuns };
    const r = missRatioCurves(window, { maxBlocks: size, workers: 1, points: size });
    if (r.empty) throw new Error(r.empty);
    expect(r.distinctBlocks).toBeGreaterThan(5 * size);
    const sizes = r.perWorker.points.map((p) => p.blocks);
    for (const scope of ["worker", "shared"] as const) {
      const got = (scope === "worker" ? r.perWorker : r.shared).points;
      expect(got.map((p) => p.hitTokens)).toEqual(bruteForceLru(window, scope, sizes).map((p) => p.hitTokens));
    }
  });

  it("stays exact through the stacks' compactions (a trace of ~400k block accesses)", () => {
    const trace = generateTrace({ seed: 9, trajectories: 400, turns: 30, workers: 3, openingBlocks: 40, growth: 6 });
    const window = { turns: trace.turns, firstRuns: trace.firstRuns };
    const at = [0, 1, 40, 120, 700, 3000, 9000, 20_000];
    const r = missRatioCurves(window, { maxBlocks: 20_000, workers: 1, points: 4, at });
    if (r.empty) throw new Error(r.empty);
    expect(r.accesses).toBeGreaterThan(300_000);
    for (const scope of ["worker", "shared"] as const) {
      const got = (scope === "worker" ? r.perWorker : r.shared).requested;
      expect(got.map((p) => p.hitTokens)).toEqual(bruteForceLru(window, scope, at).map((p) => p.hitTokens));
    }
    // ~3 s alone; a CI machine shared with other work ran it 8x slower (a timeout there is not a wrong answer).
  }, 120_000);

  it("scales the shared curve's sizes by the workers it stands for", () => {
    const trace = generateTrace({ seed: 6, trajectories: 10, turns: 5, workers: 2 });
    const r = missRatioCurves({ turns: trace.turns }, { maxBlocks: 50, workers: 2, points: 5, at: [17] });
    if (r.empty) throw new Error(r.empty);
    expect(r.perWorker.points.map((p) => p.blocks)).toEqual([0, 10, 17, 20, 30, 40, 50]);
    expect(r.shared.points.map((p) => p.blocks)).toEqual([0, 20, 34, 40, 60, 80, 100]);
    expect(r.shared.requested.map((p) => p.blocks)).toEqual([34]);
    expect(r.shared.requested[0]!.hitTokens).toBe(bruteForceLru({ turns: trace.turns }, "shared", [34])[0]!.hitTokens);
  });
});

describe("missRatioCurves on bad input", () => {
  it("throws naming the block sizes when counted turns mix them", () => {
    const turns = [
      turnOf({ arrivedAt: 1, blocks: chain("a"), blockSize: 16 }),
      turnOf({ arrivedAt: 2, blocks: chain("b"), blockSize: 64 }),
    ];
    expect(() => missRatioCurves({ turns }, { maxBlocks: 4, workers: 1 })).toThrow(/mixes block sizes: 16, 64/);
  });

  it("takes the cluster's block size for turns that record none, and says when it is missing", () => {
    const turns = [turnOf({ arrivedAt: 1, blocks: chain("a"), blockSize: null })];
    expect(() => missRatioCurves({ turns }, { maxBlocks: 4, workers: 1 })).toThrow(/block size is not known/);
    expect(missRatioCurves({ turns, blockSize: 32 }, { maxBlocks: 4, workers: 1 })).toMatchObject({ blockSize: 32 });
  });

  it("throws on a block size of 0", () => {
    const turns = [turnOf({ arrivedAt: 1, blocks: chain("a"), blockSize: 0 })];
    expect(() => missRatioCurves({ turns }, { maxBlocks: 4, workers: 1 })).toThrow(/block size 0/);
  });

  it.each([
    ["no turns", []],
    [
      "turns without chains",
      [turnOf({ arrivedAt: 1, blocks: null }), turnOf({ arrivedAt: 2, blocks: new Uint32Array(0) })],
    ],
    ["chains only in warm-up", [turnOf({ arrivedAt: 1, blocks: chain("a"), phase: "warmup" })]],
  ])("flags %s as empty instead of a flat curve", (_, turns) => {
    expect(missRatioCurves({ turns }, { maxBlocks: 4, workers: 1 })).toMatchObject({
      empty: "no chains in the window",
    });
  });

  it.each([
    [{ maxBlocks: 0, workers: 1 }, /maxBlocks/],
    [{ maxBlocks: 2.5, workers: 1 }, /maxBlocks/],
    [{ maxBlocks: 4, workers: 0 }, /workers/],
    [{ maxBlocks: 4, workers: 1, points: 0 }, /points/],
    [{ maxBlocks: 4, workers: 1, at: [-1] }, /at takes/],
    [{ maxBlocks: 2 ** 30, workers: 4 }, /2\^31/],
  ])("refuses options %o", (opts, message) => {
    expect(() => missRatioCurves({ turns: [] }, opts)).toThrow(message);
  });
});

describe("curveOptionsFor", () => {
  it("goes to 4× the largest recorded worker capacity and answers the recorded one", () => {
    const workers = [
      { workerId: "w1", role: "aggregated" as const, kvTotalBlocks: 100, blockSize: 16 },
      { workerId: "w2", role: "aggregated" as const, kvTotalBlocks: 120, blockSize: 16 },
    ];
    expect(curveOptionsFor({ workers, turns: [] })).toEqual({ maxBlocks: 480, workers: 2, at: [120] });
  });

  it("without a recorded capacity, goes to 4× the longest chain", () => {
    const turns = [turnOf({ arrivedAt: 1, blocks: chain("a", "b", "c"), workerId: "w9" })];
    expect(curveOptionsFor({ workers: [], turns })).toEqual({ maxBlocks: 12, workers: 1 });
  });
});
