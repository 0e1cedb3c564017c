import { AppError } from "../../errors";
import { capacityFor, kneeOf, sizeOf, type CapacityAnswer, type CapacitySize } from "./answer";
import type { CurvePoint } from "./curve";
import type { CurveOptions } from "./mrc";
import { capacityCurves } from "./plan";
import type { CapacityClass, CapacityWindow } from "./window-turns";

// The capacity API's answer, computed from a loaded window (the route reads the window and passes the options
// curveOptionsFor derives from it): both curves with every point in blocks, tokens and GB, the knee, the size a
// target hit rate needs, how the curves were made (exact or sampled, with the stated error), and the same as CSV.
// Names are snake_case, as the API's JSON is.

/** Block counts `capacities=` may list at most. */
export const MAX_CAPACITIES = 64;
/** The largest block count `capacities=` takes (per worker). */
export const MAX_CAPACITY_BLOCKS = 100_000_000;

/**
 * `capacities=B1,B2,…` (per-worker block counts) as distinct whole numbers ascending; null when absent or empty.
 * Refused (400) with the item named: not a whole number, out of range, or more than MAX_CAPACITIES of them.
 */
export function parseCapacities(text: string | null): number[] | null {
  if (text === null || text.trim() === "") return null;
  const items = text.split(",").map((s) => s.trim());
  if (items.length > MAX_CAPACITIES)
    throw new AppError("BAD_REQUEST", `capacities takes at most ${MAX_CAPACITIES} block counts (got ${items.length})`);
  const out = new Set<number>();
  for (const item of items) {
    const n = /^\d{1,9}$/.test(item) ? Number(item) : NaN;
    if (!Number.isInteger(n) || n > MAX_CAPACITY_BLOCKS)
      throw new AppError(
        "BAD_REQUEST",
        `capacities: ${JSON.stringify(item.slice(0, 20))} is not a whole number of blocks from 0 to ${MAX_CAPACITY_BLOCKS}`,
      );
    out.add(n);
  }
  return [...out].sort((a, b) => a - b);
}

export type ReportOptions = {
  /** What curveOptionsFor gives for the window: per-worker range, workers, the recorded capacity in `at`. */
  base: CurveOptions;
  /** Per-worker block counts to answer exactly, and only those (null: evenly spaced points). */
  capacities: number[] | null;
  /** Target hit rate, 0–1 (null: no answer asked). */
  target: number | null;
  /** KV bytes per token of the model, for the GB figures. */
  bytesPerToken: number;
  /** Memory the exact pass may use; beyond it the curves are sampled (plan.ts). */
  memoryBytes: number;
};

export type ReportPoint = {
  blocks: number;
  tokens: number;
  gigabytes: number;
  hit_rate: number;
  hit_tokens: number;
  /** Hit tokens per retention class (on the all-workers and shared curves). */
  by_class?: Record<CapacityClass, number>;
  /** The shared cache's size in all (blocks × workers); `blocks` and the other sizes are per worker. */
  total_blocks?: number;
};

/** `shared`: one cache over all turns; `worker:<id>`: that worker's cache over the turns routed to it. */
export type ReportCurve = {
  scope: "shared" | `worker:${string}`;
  /** Window turns the curve covers and their input tokens (its hit rates' denominator). */
  turns: number;
  input_tokens: number;
  points: ReportPoint[];
};

/** A cache size in all units, as the API names them. */
export type ReportSize = { blocks: number; tokens: number; gigabytes: number; hit_rate: number };

/**
 * The smallest size reaching the target (null: no point does), the point before it (the true size lies between),
 * the best hit rate on the curve, and how much more than today's the size is (null: not reached, or today unknown).
 */
export type ReportAnswer = {
  target: number;
  size: ReportSize | null;
  below: ReportSize | null;
  best: number;
  more_than_today: ReportSize | null;
};

const snake = (s: CapacitySize | null): ReportSize | null =>
  s && { blocks: s.blocks, tokens: s.tokens, gigabytes: s.gigabytes, hit_rate: s.hitRate };

export type CapacityReport =
  | { empty: string; turns: number; input_tokens: number }
  | {
      empty: null;
      block_size: number;
      turns: number;
      chained_turns: number;
      unrouted_turns: number;
      workers: number;
      input_tokens: number;
      bytes_per_token: number;
      /** The recorded per-worker capacity in blocks (null: the window's workers reported none). */
      today_blocks: number | null;
      /** null: exact; else the sampling rate, the size from which points are reliable, and the stated error. */
      sampling: null | { rate: number; reliable_from_blocks: number; error_points: number | null; method: string };
      /** Every worker its own cache of `blocks` (per worker), turns routed as recorded: the fleet's figure. */
      per_worker: { points: ReportPoint[] };
      /** The shared cache, then each worker's own curve; every curve's sizes are KV per worker (the shared cache of
       * `blocks` per worker holds `total_blocks` = blocks × workers in all). */
      curves: ReportCurve[];
      knee: { per_worker: ReportSize | null; shared: ReportSize | null };
      answer: { per_worker: ReportAnswer; shared: ReportAnswer } | null;
    };

/** The report for a window (throws AppError on bad options or mixed block sizes, as the curves do). */
export function capacityReport(w: CapacityWindow, o: ReportOptions): CapacityReport {
  if (o.target !== null && !(o.target > 0 && o.target <= 1))
    throw new AppError("BAD_REQUEST", "target hit rate must be in (0, 1]");
  if (!(o.bytesPerToken > 0)) throw new AppError("BAD_REQUEST", "bytes per token must be above 0");
  const opts: CurveOptions = o.capacities
    ? { ...o.base, maxBlocks: Math.max(1, ...o.capacities), points: 1, at: o.capacities }
    : o.base;
  const c = capacityCurves(w, { ...opts, memoryBytes: o.memoryBytes });
  if (c.empty) return { empty: c.empty, turns: c.turns, input_tokens: c.inputTokens };
  // With capacities, exactly those sizes; else the evenly spaced points. Every curve is on one axis, KV per worker:
  // the shared cache of B × workers blocks in all stands at B (its total beside it).
  const pick = (curve: { points: CurvePoint[]; requested: CurvePoint[] }) =>
    o.capacities ? curve.requested : curve.points;
  const perWorkerAxis = (points: CurvePoint[]) => points.map((p) => ({ ...p, blocks: p.blocks / c.workers }));
  const perWorker = pick(c.perWorker);
  const shared = perWorkerAxis(pick(c.shared));
  const point =
    (classes: boolean) =>
    (p: CurvePoint): ReportPoint => {
      const s = sizeOf(p, c.blockSize, o.bytesPerToken);
      const out: ReportPoint = {
        blocks: s.blocks,
        tokens: s.tokens,
        gigabytes: s.gigabytes,
        hit_rate: p.hitRate,
        hit_tokens: p.hitTokens,
      };
      if (classes) out.by_class = p.byClass;
      return out;
    };
  const sharedPoint = (p: CurvePoint): ReportPoint => ({ ...point(true)(p), total_blocks: p.blocks * c.workers });
  const today = o.base.at?.[0] ?? null;
  // The smallest size reaching the target among the points returned, and what it adds to today's.
  const answerOf = (points: CurvePoint[]): ReportAnswer => {
    const a: CapacityAnswer = capacityFor(points, o.target!, c.blockSize, o.bytesPerToken);
    const extra =
      a.size && today !== null
        ? sizeOf(
            { ...points[0]!, blocks: Math.max(0, a.size.blocks - today), hitRate: a.size.hitRate },
            c.blockSize,
            o.bytesPerToken,
          )
        : null;
    return {
      target: a.target,
      size: snake(a.size),
      below: snake(a.below),
      best: a.best,
      more_than_today: snake(extra),
    };
  };
  return {
    empty: null,
    block_size: c.blockSize,
    turns: c.turns,
    chained_turns: c.chainedTurns,
    unrouted_turns: c.unroutedTurns,
    workers: c.workers,
    input_tokens: c.inputTokens,
    bytes_per_token: o.bytesPerToken,
    today_blocks: today,
    sampling: c.sampling
      ? {
          rate: c.sampling.rate,
          reliable_from_blocks: c.sampling.reliableFromBlocks,
          error_points: c.sampling.errorPoints.perWorker,
          method: c.sampling.method,
        }
      : null,
    per_worker: { points: perWorker.map(point(true)) },
    curves: [
      { scope: "shared", turns: c.turns, input_tokens: c.inputTokens, points: shared.map(sharedPoint) },
      ...c.byWorker.map((w): ReportCurve => ({
        scope: `worker:${w.workerId}`,
        turns: w.turns,
        input_tokens: w.inputTokens,
        points: pick(w.curve).map(point(false)),
      })),
    ],
    // A knee needs the whole curve: none over a few asked sizes.
    knee: o.capacities
      ? { per_worker: null, shared: null }
      : {
          per_worker: snake(kneeOf(c.perWorker.points, c.blockSize, o.bytesPerToken)),
          shared: snake(kneeOf(perWorkerAxis(c.shared.points), c.blockSize, o.bytesPerToken)),
        },
    answer: o.target === null ? null : { per_worker: answerOf(perWorker), shared: answerOf(shared) },
  };
}

/**
 * The report's curves as CSV: one row per curve and point, the all-workers curve first as scope `per_worker` (a header
 * row; an empty window gives the header alone).
 */
export function capacityCsv(r: CapacityReport): string {
  const head = "scope,blocks,tokens,gigabytes,hit_rate,hit_tokens\n";
  if (r.empty !== null) return head;
  const rows = [{ scope: "per_worker", points: r.per_worker.points }, ...r.curves].flatMap((c) =>
    c.points.map((p) => `${c.scope},${p.blocks},${p.tokens},${p.gigabytes},${p.hit_rate},${p.hit_tokens}`),
  );
  return head + rows.join("\n") + "\n";
}
