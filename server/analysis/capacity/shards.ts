import { AppError } from "../../errors";
import { SEG_TOOLS } from "../../sim/stream";
import { curveEdges } from "./curve";
import {
  checkOptions,
  classRecord,
  curveOf,
  emptyResult,
  type CapacityCurves,
  type CapacityEmpty,
  type CurveOptions,
} from "./mrc";
import type { RecordedTurn } from "../../preview/types";
import {
  newChain,
  P,
  sampleChain,
  sampledBlocks,
  SampledIds,
  SampledScope,
  type SampledBlocks,
  type SampledChain,
} from "./sample-scope";
import {
  CAPACITY_CLASSES,
  chainLength,
  chainTokens,
  prepareWindow,
  shapeOf,
  type CapacityWindow,
  type PreparedWindow,
  type TurnShape,
} from "./window-turns";

// Miss-ratio curves from a spatial sample of blocks (SHARDS, Waldspurger et al., FAST 2015), for windows whose exact
// stacks would not fit in memory (plan.ts chooses). A block is sampled iff its chain-prefix key hashes below T modulo
// P (rate R = T/P): the same blocks in every turn and on every worker, so the sampled stacks see every access to the
// blocks they hold, and a sampled distance scaled by 1/R estimates the true one.
// Prefix semantics: a sampled block's threshold is the running maximum of the scaled distances of the turn's sampled
// blocks up to it; unsampled blocks are not looked at. That loses nothing: within a chain the true distances never
// decrease (a turn touching block i touched blocks 0..i−1 after it, in the same turn), so a block's own distance
// already is the running maximum, and a block seen before has every block in front of it seen before.
// Hit tokens are a ratio estimate per class: the sampled blocks' cached share of their tokens times the tokens of all
// chained blocks of that class (of routed turns, on the per-worker curve).
// Error: a distance of d blocks is estimated from about R·d sampled ones, so sizes under 100/R blocks are blurred
// (reliableFromBlocks). From there on the stated error is the largest over the curve of the sampling bias, taken from
// G disjoint sub-samples at rate R/G (their mean minus the full curve, over G − 1: the bias grows as 1/R), plus three
// standard errors (their spread over √G). Measured: on generated traces (shards.test.ts) the realized error stays
// under the stated one; on an hour of the steady scenario (8 workers, 15.8M block accesses) the largest difference
// from the exact curves is 1.2 points per worker and 1.9 shared at R = 0.01 (stated 2.5 and 4.0), 0.1 and 0.3 at
// R = 0.1 (stated 1.7 and 3.2). A few very hot blocks (one system prompt behind every turn) make a sample noisier;
// the stated error grows with it.

const GROUPS = 16;
/** Sampled blocks a distance should span for the estimate to hold (relative noise about 1/√100 = 10%). */
const RELIABLE_SAMPLES = 100;

export type SampleOptions = CurveOptions & {
  /** Sampling rate, 0 < rate ≤ 1 (SHARDS' fixed rate; 0.01 keeps about 1 block in 100). */
  rate: number;
};

export type SampledCurves =
  | CapacityEmpty
  | (Extract<CapacityCurves, { empty: null }> & {
      sampling: {
        rate: number;
        /** Sampled block accesses of counted turns. */
        sampledAccesses: number;
        /** Sizes below this many blocks (100 ÷ rate, on each curve's own axis) are blurred: distances shorter than
         * about 100 sampled blocks are too noisy; the page should grey them out. */
        reliableFromBlocks: number;
        /** Estimated largest error in hit-rate points (0–100) over the points from reliableFromBlocks on (null: none). */
        errorPoints: { perWorker: number | null; shared: number | null };
        method: string;
      };
    });

type Sample = { worker: SampledScope; shared: SampledScope };

/** Sampled per-worker and shared curves with their error estimate; throws as missRatioCurves does, or on a bad rate. */
export function sampledCurves(w: CapacityWindow, opts: SampleOptions): SampledCurves {
  if (!(opts.rate > 0 && opts.rate <= 1)) throw new AppError("BAD_REQUEST", "rate must be in (0, 1]");
  return sampleCurves(prepareWindow(w), checkOptions(opts), opts.rate);
}

/** sampledCurves over a prepared window, with checked options. */
export function sampleCurves(p: PreparedWindow, o: Required<CurveOptions>, requestedRate: number): SampledCurves {
  if (p.chained === 0) return emptyResult(p);
  const T = Math.max(1, Math.round(requestedRate * P));
  const rate = T / P;
  const edges = curveEdges(o.maxBlocks, o.points, o.at);
  const sharedEdges = edges.map((e) => e * o.workers);
  const make = (r: number): Sample => ({
    worker: new SampledScope(edges, 1 / r),
    shared: new SampledScope(sharedEdges, 1 / r),
  });
  const sample = make(rate);
  const groups = Array.from({ length: GROUPS }, () => make(rate / GROUPS));
  const bs = p.blockSize;
  const ids = new SampledIds(T, GROUPS);
  let all = sampledBlocks(64);
  let subs = Array.from({ length: GROUPS }, () => sampledBlocks(64));
  const used = new Int32Array(GROUPS);
  const chains = new Map<string, SampledChain>();
  let unrouted = 0;
  let sampledAccesses = 0;
  const routedTokens = CAPACITY_CLASSES.map(() => 0);
  for (let k = 0; k < p.order.length; k++) {
    const t = p.turns[p.order[k]!]!;
    const n = chainLength(t);
    if (n === 0) continue;
    const counted = t.phase === "window";
    let ch = chains.get(t.trajectoryId);
    if (!ch) chains.set(t.trajectoryId, (ch = newChain()));
    const m = sampleChain(ch, t.blocks!, n, p.common[k]!, T, ids);
    if (p.lastTurn.get(t.trajectoryId) === k) chains.delete(t.trajectoryId);
    if (all.ids.length < m) {
      all = sampledBlocks(2 * m);
      subs = subs.map(() => sampledBlocks(2 * m));
    }
    const s = shapeOf(p.shapes, t);
    used.fill(0);
    for (let j = 0; j < m; j++) {
      const pos = ch.at[j]!;
      const id = ch.ids[j]!;
      const cls = pos < s.firstBlocks ? s.firstClass : pos < s.sharedBlocks ? SEG_TOOLS : s.own;
      const tok = Math.max(0, Math.min(bs, t.inputTokens - pos * bs));
      all.ids[j] = id;
      all.cls[j] = cls;
      all.tok[j] = tok;
      const g = ids.group[id]!;
      const sub = subs[g]!;
      sub.ids[used[g]!] = ids.local[id]!;
      sub.cls[used[g]!] = cls;
      sub.tok[used[g]!++] = tok;
    }
    if (counted) {
      sampledAccesses += m;
      if (t.workerId === null) unrouted++;
      else addClassTokens(routedTokens, t, s, n, bs);
    }
    const feed = (sc: Sample, src: SampledBlocks, c: number, idCount: number) => {
      sc.shared.turn("", src, c, counted, idCount);
      if (t.workerId !== null) sc.worker.turn(t.workerId, src, c, counted, idCount);
    };
    feed(sample, all, m, ids.size);
    for (let g = 0; g < GROUPS; g++) feed(groups[g]!, subs[g]!, used[g]!, ids.groupSize[g]!);
  }
  const pointsOf = (sc: SampledScope, scope: "worker" | "shared") => {
    const totals = scope === "worker" ? routedTokens : p.classTokens;
    return sc.sink.points(
      p.inputTokens,
      sc.classTokens.map((v, c) => (v > 0 ? totals[c]! / v : 0)),
    );
  };
  const reliableFrom = Math.ceil(RELIABLE_SAMPLES / rate);
  const errorOf = (scope: "worker" | "shared") => {
    const pts = pointsOf(sample[scope], scope);
    const full = pts.map((x) => x.hitRate);
    const curves = groups.map((g) => pointsOf(g[scope], scope).map((x) => x.hitRate));
    let worst: number | null = null;
    for (let j = 0; j < full.length; j++) {
      if (pts[j]!.blocks < reliableFrom) continue;
      const v = curves.map((c) => c[j]!);
      const mean = v.reduce((a, b) => a + b, 0) / GROUPS;
      const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (GROUPS - 1));
      const e = Math.abs(mean - full[j]!) / (GROUPS - 1) + (3 * sd) / Math.sqrt(GROUPS);
      worst = Math.max(worst ?? 0, e * 100);
    }
    return worst;
  };
  return {
    empty: null,
    blockSize: bs,
    turns: p.counted,
    chainedTurns: p.chained,
    unroutedTurns: unrouted,
    accesses: p.accesses,
    distinctBlocks: Math.round(ids.size / rate),
    inputTokens: p.inputTokens,
    classTokens: classRecord(p.classTokens),
    workers: o.workers,
    perWorker: curveOf(pointsOf(sample.worker, "worker"), o.at, 1),
    shared: curveOf(pointsOf(sample.shared, "shared"), o.at, o.workers),
    byWorker: [],
    sampling: {
      rate,
      sampledAccesses,
      reliableFromBlocks: reliableFrom,
      errorPoints: { perWorker: errorOf("worker"), shared: errorOf("shared") },
      method: `SHARDS at rate ${rate.toPrecision(3)}; error: the sampling bias (extrapolated from ${GROUPS} disjoint sub-samples) plus three standard errors, largest over the curve from ${reliableFrom} blocks on`,
    },
  };
}

/** Add a turn's chained input tokens per class to `into`. */
function addClassTokens(into: number[], t: RecordedTurn, s: TurnShape, n: number, bs: number): void {
  into[s.firstClass]! += chainTokens(t, bs, 0, Math.min(s.firstBlocks, n));
  into[SEG_TOOLS]! += chainTokens(t, bs, Math.min(s.firstBlocks, n), Math.min(s.sharedBlocks, n));
  into[s.own]! += chainTokens(t, bs, Math.min(s.sharedBlocks, n), n);
}
