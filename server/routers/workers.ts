import "server-only";
import { z } from "zod";
import { SERIES_CHARTS } from "../../db/store/worker-columns";
import { storedByClass } from "../../db/store/worker-activity";
import { bucketStep } from "../analysis/workers";
import { MAX_ID } from "../ingest/events";
import { workerSeries } from "../reads/worker-series";
import { scopedWorkers, workerDetail, workerTable } from "../reads/workers";
import { isWholeFleet } from "../../lib/scope";
import { viewerProcedure, router } from "../trpc/init";
import { rangeInput, resolveInput, scopedRangeInput, scopeFields, scopeOfInput } from "./range";

const workerId = z.string().min(1).max(MAX_ID);
const oneWorker = z.object({ id: workerId, range: rangeInput });

export const workersRouter = router({
  /** The workers table: one row per worker with telemetry in the range (of one cluster and/or model when asked). */
  list: viewerProcedure.input(scopedRangeInput).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input, ctx.now());
    return { from, to, live, workers: await workerTable(ctx.store, from, to, scopeOfInput(input)) };
  }),

  /**
   * KV utilization and prefix hit rate per worker (or of one) in buckets sized to the range, from the coarsest fitting
   * rollup. With `chart`, that chart's column alone (the other comes back empty): one panel's query, read for less.
   */
  series: viewerProcedure
    .input(
      z
        .object({ range: rangeInput, workerId: workerId.optional(), chart: z.enum(SERIES_CHARTS).optional() })
        .and(scopeFields),
    )
    .query(async ({ ctx, input }) => {
      const { from, to, live } = resolveInput(input.range, ctx.now());
      const step = bucketStep(to - from);
      const charts = input.chart ? [input.chart] : undefined;
      const scope = scopeOfInput(input);
      // A scope's workers are read alone (not every worker's series, dropped after).
      const kept = isWholeFleet(scope)
        ? undefined
        : (await scopedWorkers(ctx.store, from, to, scope)).map((w) => w.workerId);
      const { source, workers } = await workerSeries(ctx.store, {
        from,
        to,
        step,
        workerId: input.workerId,
        charts,
        ...(kept ? { workers: kept } : {}),
      });
      const ids = kept && input.workerId !== undefined ? new Set(kept) : null;
      return { from, to, live, step, source, workers: ids ? workers.filter((w) => ids.has(w.workerId)) : workers };
    }),

  /** One worker over the range: state, gauges, requests served, routing decisions won and lost, evictions. */
  byId: viewerProcedure.input(oneWorker).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input.range, ctx.now());
    return { from, to, live, ...(await workerDetail(ctx.store, input.id, from, to)) };
  }),

  /** Blocks one worker stored per bucket and retention class (kv.stored events in the range). */
  blocksByClass: viewerProcedure.input(oneWorker).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input.range, ctx.now());
    const step = bucketStep(to - from);
    return { from, to, live, step, rows: await storedByClass(ctx.store, input.id, from, to, step) };
  }),
});
