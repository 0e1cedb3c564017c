import { AppError } from "../../errors";
import type { ReplayInput } from "../../preview/types";
import { curveEdges, CurveSink, type CurvePoint } from "./curve";
import { stackPass } from "./stack-pass";
import {
  CAPACITY_CLASSES,
  prepareWindow,
  type CapacityClass,
  type CapacityWindow,
  type PreparedWindow,
} from "./window-turns";

// Exact miss-ratio curves of LRU caches over a window's recorded block chains (Mattson's stack algorithm, one pass):
// how many of the window's input tokens a cache of C blocks would have served, for every C at once. Prefix semantics:
// a turn's cached blocks are its longest leading run of blocks all held, so block i hits iff max(d_0..d_i) < C, and
// its cached tokens are min(blocks hit × block size, input tokens). Turns before the window warm the caches; turns
// without a chain count as misses; after a turn its blocks are the most recent, block 0 on top (see lru-stack.ts).
// A block is named by its whole chain prefix (recorded chains may hold content hashes, under which equal content
// after different prefixes would be one block). Time: a pair-by-pair comparison with the trajectory's previous
// chain, a key lookup per block not in it, O(1) typed-array work per block and one Fenwick query per run of blocks
// last touched together. Memory: about 60 bytes per distinct block plus 4 per block per worker, and stacks cut at the
// largest size asked (plan.ts estimates it and falls back to shards.ts when it does not fit).

export type CurveOptions = {
  /** Largest per-worker cache on the curves, in blocks (at least 4× the recorded per-worker capacity). */
  maxBlocks: number;
  /** Workers the shared cache stands for: its sizes are the per-worker sizes × workers (the same KV in all). */
  workers: number;
  /** Evenly spaced sizes from 0 to maxBlocks (default 200). */
  points?: number;
  /** Per-worker sizes answered exactly as well (e.g. the recorded capacity). */
  at?: readonly number[];
};

/** A curve's evenly spaced points (with the requested sizes among them) and the requested sizes on their own. */
export type Curve = { points: CurvePoint[]; requested: CurvePoint[] };

export type CapacityEmpty = { empty: "no chains in the window"; turns: number; inputTokens: number };

export type CapacityCurves =
  | CapacityEmpty
  | {
      empty: null;
      blockSize: number;
      /** Window turns, those with a chain, those with a chain and no worker (misses on the per-worker curve). */
      turns: number;
      chainedTurns: number;
      unroutedTurns: number;
      /** Blocks touched, warm-up included, and distinct blocks among them. */
      accesses: number;
      distinctBlocks: number;
      inputTokens: number;
      /** Input tokens the chains cover per class (the most a cache can serve of each). */
      classTokens: Record<CapacityClass, number>;
      workers: number;
      /** Each worker its own cache of `blocks`, turns routed as recorded. */
      perWorker: Curve;
      /** One cache of `blocks` over all turns: the bound a perfect router reaches with the same KV in all. */
      shared: Curve;
      /** Each worker's own curve over the window turns routed to it (their hit rate over their input tokens), by
       * worker id; empty when the curves were sampled (a sample is too thin to split by worker). */
      byWorker: WorkerCurve[];
    };

/** One worker's cache over the turns routed to it. */
export type WorkerCurve = { workerId: string; turns: number; inputTokens: number; curve: Curve };

const MAX_POINTS = 2_000;

/** Exact per-worker and shared LRU curves of a window; throws on bad options or mixed block sizes (AppError). */
export function missRatioCurves(w: CapacityWindow, opts: CurveOptions): CapacityCurves {
  const o = checkOptions(opts);
  return exactCurves(prepareWindow(w), o);
}

/** missRatioCurves over a prepared window, with checked options. */
export function exactCurves(p: PreparedWindow, o: Required<CurveOptions>): CapacityCurves {
  if (p.chained === 0) return emptyResult(p);
  const edges = curveEdges(o.maxBlocks, o.points, o.at);
  const worker = new CurveSink(edges);
  const shared = new CurveSink(edges.map((e) => e * o.workers));
  const own = new Map<string, CurveSink>();
  const byWorker = (id: string) => {
    let sink = own.get(id);
    if (!sink) own.set(id, (sink = new CurveSink(edges)));
    return sink;
  };
  const top = edges[edges.length - 1]!;
  const stats = stackPass(p, { worker, byWorker, shared }, { worker: top, shared: top * o.workers });
  const routed = routedTurns(p);
  return {
    empty: null,
    blockSize: p.blockSize,
    turns: p.counted,
    chainedTurns: p.chained,
    unroutedTurns: stats.unrouted,
    accesses: p.accesses,
    distinctBlocks: stats.distinct,
    inputTokens: p.inputTokens,
    classTokens: classRecord(p.classTokens),
    workers: o.workers,
    perWorker: curveOf(worker.points(p.inputTokens), o.at, 1),
    shared: curveOf(shared.points(p.inputTokens), o.at, o.workers),
    byWorker: [...routed]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([workerId, r]) => ({
        workerId,
        turns: r.turns,
        inputTokens: r.inputTokens,
        curve: curveOf(byWorker(workerId).points(r.inputTokens), o.at, 1),
      })),
  };
}

/** Window turns and their input tokens per worker they were routed to. */
function routedTurns(p: PreparedWindow): Map<string, { turns: number; inputTokens: number }> {
  const out = new Map<string, { turns: number; inputTokens: number }>();
  for (let k = 0; k < p.order.length; k++) {
    const t = p.turns[p.order[k]!]!;
    if (t.phase !== "window" || t.workerId === null) continue;
    const r = out.get(t.workerId) ?? { turns: 0, inputTokens: 0 };
    r.turns++;
    r.inputTokens += t.inputTokens;
    out.set(t.workerId, r);
  }
  return out;
}

/** Options from a loaded window: up to `times` × the largest recorded worker capacity, the recorded one answered. */
export function curveOptionsFor(input: Pick<ReplayInput, "workers" | "turns">, times = 4): CurveOptions {
  const recorded = input.workers.reduce((m, w) => Math.max(m, w.kvTotalBlocks ?? 0), 0);
  const routed = new Set(input.turns.map((t) => t.workerId).filter((id) => id !== null)).size;
  const workers = Math.max(1, input.workers.length, routed);
  if (recorded > 0) return { maxBlocks: recorded * times, workers, at: [recorded] };
  const longest = input.turns.reduce((m, t) => Math.max(m, t.blocks ? t.blocks.length >> 1 : 0), 1);
  return { maxBlocks: longest * times, workers };
}

/** The answer for a window without chains (a flat curve would read as "no cache helps"). */
export function emptyResult(p: PreparedWindow): CapacityEmpty {
  return { empty: "no chains in the window", turns: p.counted, inputTokens: p.inputTokens };
}

/** Per-class figures by class name. */
export function classRecord(v: readonly number[]): Record<CapacityClass, number> {
  return Object.fromEntries(CAPACITY_CLASSES.map((c, i) => [c, v[i] ?? 0])) as Record<CapacityClass, number>;
}

/** The curve and its requested sizes (per worker, × `scale` on the shared curve). */
export function curveOf(points: CurvePoint[], at: readonly number[], scale: number): Curve {
  const want = new Set(at.map((a) => Math.max(0, Math.round(a)) * scale));
  return { points, requested: points.filter((p) => want.has(p.blocks)) };
}

/** Options with defaults, or a 400 naming the option that is out of range. */
export function checkOptions(opts: CurveOptions): Required<CurveOptions> {
  const whole = (v: number, min: number, max: number) => Number.isInteger(v) && v >= min && v <= max;
  if (!whole(opts.maxBlocks, 1, 2 ** 31 - 1))
    throw new AppError("BAD_REQUEST", "maxBlocks must be a whole number of blocks, at least 1");
  if (!whole(opts.workers, 1, 100_000)) throw new AppError("BAD_REQUEST", "workers must be a whole number, 1–100000");
  const points = opts.points ?? 200;
  if (!whole(points, 1, MAX_POINTS))
    throw new AppError("BAD_REQUEST", `points must be a whole number, 1–${MAX_POINTS}`);
  const at = opts.at ?? [];
  if (at.length > 100 || at.some((a) => !whole(a, 0, 2 ** 31 - 1)))
    throw new AppError("BAD_REQUEST", "at takes up to 100 whole block counts ≥ 0");
  if (at.some((a) => a * opts.workers > 2 ** 31 - 1) || opts.maxBlocks * opts.workers > 2 ** 31 - 1)
    throw new AppError("BAD_REQUEST", "maxBlocks × workers must stay below 2^31 blocks");
  return { maxBlocks: opts.maxBlocks, workers: opts.workers, points, at };
}
