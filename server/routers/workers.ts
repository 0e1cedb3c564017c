import "server-only";
import { z } from "zod";
import {
  decisionCount,
  decisionsLost,
  decisionsWon,
  latestSamples,
  lifecycleBefore,
  lifecycleInRange,
  prefixByWorker,
  removalsByReason,
  requestsServed,
  statsCoverage,
  storedByClass,
  workerById,
  workersInRange,
  type WorkerInfo,
} from "../../db/queries/workers";
import { workerPreemptions } from "../../db/queries/decode";
import type { Db } from "../../db/client";
import { statsResolution } from "../analysis/resolution";
import { bucketStep, candidacyWindow, lostDecisions, seriesPoints, workerRows } from "../analysis/workers";
import { AppError } from "../errors";
import { MAX_ID } from "../ingest/events";
import { decodeByWorker, decodeStats } from "../reads/decode";
import { seriesRows } from "../reads/worker-series";
import { viewerProcedure, router } from "../trpc/init";
import { rangeInput, resolveInput } from "./range";

const workerId = z.string().min(1).max(MAX_ID);
const oneWorker = z.object({ id: workerId, range: rangeInput });

/** Table rows for the workers in [from, to], or for one worker. */
function rowsFor(db: Db, from: number, to: number, one?: WorkerInfo) {
  const workers = one ? [one] : workersInRange(db, from, to);
  const ids = workers.map((w) => w.workerId);
  return workerRows({
    workers,
    lifecycle: lifecycleInRange(db, from, to, one?.workerId),
    before: lifecycleBefore(db, from, one?.workerId),
    latest: latestSamples(db, ids, from, to),
    prefix: prefixByWorker(db, from, to, one?.workerId),
    won: decisionsWon(db, ids, from, to),
    decisions: decisionCount(db, from, to),
    from,
    to,
  });
}

export const workersRouter = router({
  /** The workers table: one row per worker with telemetry in the range. */
  list: viewerProcedure.input(rangeInput).query(({ ctx, input }) => {
    const { from, to, live } = resolveInput(input, ctx.now());
    const decode = decodeByWorker(ctx.db, from, to);
    return {
      from,
      to,
      live,
      workers: rowsFor(ctx.db, from, to).map((w) => ({ ...w, decode: decode.get(w.workerId) ?? null })),
    };
  }),

  /** KV utilization and prefix hit rate per worker (or of one) in buckets sized to the range, from the coarsest fitting rollup. */
  series: viewerProcedure
    .input(z.object({ range: rangeInput, workerId: workerId.optional() }))
    .query(({ ctx, input }) => {
      const { from, to, live } = resolveInput(input.range, ctx.now());
      const step = bucketStep(to - from);
      const source = statsResolution({ from, to, step, ...statsCoverage(ctx.db) });
      const rows = seriesRows(ctx.db, { from, to, step, source, workerId: input.workerId });
      return { from, to, live, step, source, workers: seriesPoints(rows) };
    }),

  /** One worker over the range: state, gauges, requests served, routing decisions won and lost, evictions. */
  byId: viewerProcedure.input(oneWorker).query(({ ctx, input }) => {
    const { from, to, live } = resolveInput(input.range, ctx.now());
    const info = workerById(ctx.db, input.id);
    if (!info) throw new AppError("NOT_FOUND", `no worker "${input.id}" has reported`);
    const window = candidacyWindow(info, from, to);
    const lost = decisionsLost(ctx.db, info.workerId, window.from, window.to);
    return {
      from,
      to,
      live,
      info,
      summary: rowsFor(ctx.db, from, to, info)[0]!,
      requestsServed: requestsServed(ctx.db, info.workerId, from, to),
      lost: {
        count: lost.lost,
        scanned: lost.scanned,
        truncated: lost.truncated,
        recent: lostDecisions(lost.recent, info.workerId),
      },
      removals: removalsByReason(ctx.db, info.workerId, from, to),
      decode: {
        ...decodeStats(ctx.db, from, to, info.workerId),
        preemptions: workerPreemptions(ctx.db, from, to, info.workerId),
        batchTokens: decodeByWorker(ctx.db, from, to).get(info.workerId)?.batchTokens ?? null,
      },
    };
  }),

  /** Blocks one worker stored per bucket and retention class (kv.stored events in the range). */
  blocksByClass: viewerProcedure.input(oneWorker).query(({ ctx, input }) => {
    const { from, to, live } = resolveInput(input.range, ctx.now());
    const step = bucketStep(to - from);
    return { from, to, live, step, rows: storedByClass(ctx.db, input.id, from, to, step) };
  }),
});
