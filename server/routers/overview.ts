import "server-only";
import { hasAnyTelemetry, latestWorkerSamples, prefixTokens, sessionCount } from "../../db/queries/overview";
import { droppedEventReports } from "../../db/queries/sources";
import { hitRate, kvUtilization, workersByRole } from "../analysis/overview";
import { trendPoints } from "../analysis/trends";
import { bucketStep, seriesSource } from "../analysis/workers";
import { attributionLagOf } from "../jobs/attribution";
import { decodeStats, itlTrend } from "../reads/decode";
import { requestStats, requestTrend } from "../reads/requests";
import { storeOf } from "../trpc/init";
import { seriesRows } from "../reads/worker-series";
import { viewerProcedure, router } from "../trpc/init";
import { rangeInput, resolveInput } from "./range";

/** Sessions count as active when they sent a request in the last five minutes of the range. */
const ACTIVE_WINDOW_MS = 5 * 60_000;
/** Workers count as present when they reported in the last minute of the range. */
const PRESENT_WINDOW_MS = 60_000;

export const overviewRouter = router({
  summary: viewerProcedure.input(rangeInput).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input, ctx.now());
    const { requests, ttftP50Ms, ttftP95Ms } = requestStats(ctx.db, from, to);
    const prefix = prefixTokens(ctx.db, from, to);
    const decode = await decodeStats(storeOf(ctx), from, to);
    const present = latestWorkerSamples(ctx.db, Math.max(from, to - PRESENT_WINDOW_MS), to);
    return {
      from,
      to,
      live,
      hasAnyData: hasAnyTelemetry(ctx.db),
      requests,
      requestsPerSecond: requests / ((to - from) / 1000),
      ttftP50Ms,
      ttftP95Ms,
      itlP50Ms: decode.itlP50Ms,
      itlP95Ms: decode.itlP95Ms,
      preemptions: decode.preemptions,
      prefixHitRate: hitRate(prefix.hit, prefix.query),
      prefixQueryTokens: prefix.query,
      kvUtilization: kvUtilization(present),
      activeSessions: sessionCount(ctx.db, Math.max(from, to - ACTIVE_WINDOW_MS), to),
      workersByRole: workersByRole(present),
      workersPresent: present.length,
      droppedEvents: droppedEventReports(ctx.db),
      /** How far miss attribution is behind now (not the range): newer turns have no causes yet. */
      attribution: attributionLagOf(ctx.db, ctx.now()),
    };
  }),

  /** The KPIs per time bucket (requests/s, TTFT p50, ITL p95, prefix hit rate, KV utilization) for sparklines. */
  trends: viewerProcedure.input(rangeInput).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input, ctx.now());
    const step = bucketStep(to - from);
    const workers = await seriesRows(storeOf(ctx), { from, to, step, source: seriesSource(to - from) });
    return {
      from,
      to,
      live,
      step,
      points: trendPoints({
        requests: requestTrend(ctx.db, from, to, step),
        workers,
        itl: itlTrend(ctx.db, from, to, step),
        step,
        from,
        to,
      }),
    };
  }),
});
