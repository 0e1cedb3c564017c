import "server-only";
import { hasAnyTelemetry, latestWorkerSamples, prefixTokens, sessionCount } from "../../db/store/overview";
import { droppedEventReports } from "../../db/store/sources";
import { hitRate, kvUtilization, workersByRole } from "../analysis/overview";
import { trendPoints } from "../analysis/trends";
import { bucketStep } from "../analysis/workers";
import { attributionLag } from "../../lib/attribution-lag";
import { oldestUnattributedOf } from "../../db/store/attribution-lag";
import { decodeStats, itlTrend } from "../reads/decode";
import { requestStats, requestTrend } from "../reads/requests";
import { coveredTotalRows } from "../reads/worker-series";
import { viewerProcedure, router } from "../trpc/init";
import { clusterNames, clusterNamesById } from "../../db/store/clusters";
import { FLEET_MAX_TTFTS, fleetRequestGroups, fleetSamples, fleetTtfts, workerModels } from "../../db/store/fleet";
import { fleetRows, fleetScopes } from "../analysis/fleet";
import { rangeInput, resolveInput, scopedRangeInput, scopeOfInput } from "./range";
import { requestScopeOf, type ScopeFilter } from "../../db/store/scope";
import { scopedWorkers } from "../reads/workers";
import { scopeFindings } from "../reads/findings";

/** Scopes whose findings the fleet table reads at most (each three queries over the window). */
const FLEET_FINDING_ROWS = 12;
import { isWholeFleet, type Scope } from "../../lib/scope";
import type { Store } from "../../db/store/store";

/** Sessions count as active when they sent a request in the last five minutes of the range. */
const ACTIVE_WINDOW_MS = 5 * 60_000;
/** Workers count as present when they reported in the last minute of the range. */
const PRESENT_WINDOW_MS = 60_000;

/** The fleet table reads raw rows: at most the last hour of a range. */
const FLEET_WINDOW_MS = 3_600_000;

/** A scope as the reads take it: its requests' filter and its workers' keys (nothing for the whole fleet). */
async function scopeFilter(s: Store, from: number, to: number, scope: Scope): Promise<ScopeFilter> {
  if (isWholeFleet(scope)) return {};
  const workers = (await scopedWorkers(s, from, to, scope)).map((w) => w.workerId);
  return { rs: requestScopeOf(scope), workers };
}

/** Rows of the scope's workers (all of them for the whole fleet). */
function keptWorkers<T extends { workerId: string }>(rows: T[], f: ScopeFilter): T[] {
  if (!f.workers) return rows;
  const keep = new Set(f.workers);
  return rows.filter((r) => keep.has(r.workerId));
}

export const overviewRouter = router({
  /** The clusters pages can be scoped to, each with the models its workers serve (the scope menus). */
  scopes: viewerProcedure.query(async ({ ctx }) => {
    const [names, workers] = await Promise.all([clusterNames(ctx.store), workerModels(ctx.store)]);
    return { clusters: fleetScopes(names, workers) };
  }),

  /**
   * The fleet table: per cluster and model, requests/s, TTFT p50/p95, token-weighted hit rate of the requests, and KV
   * utilization and workers from each worker's latest sample in the last minute. Over the range's last hour at most
   * (`from` says where it starts); `ttftsCut` when more timed requests than the percentiles read were in it.
   */
  fleet: viewerProcedure.input(rangeInput).query(async ({ ctx, input }) => {
    const { from: rangeFrom, to, live } = resolveInput(input, ctx.now());
    const from = Math.max(rangeFrom, to - FLEET_WINDOW_MS);
    const s = ctx.store;
    const [groups, ttfts, samples, names] = await Promise.all([
      fleetRequestGroups(s, from, to),
      fleetTtfts(s, from, to),
      fleetSamples(s, Math.max(from, to - PRESENT_WINDOW_MS), to),
      clusterNamesById(s),
    ]);
    return {
      from,
      to,
      live,
      clipped: from > rangeFrom,
      ttftsCut: ttfts.length >= FLEET_MAX_TTFTS,
      rows: fleetRows({ groups, ttfts, samples, names, windowMs: to - from }),
    };
  }),

  /**
   * The fleet table's findings column: per cluster and model of the fleet table's window (the range's last hour at
   * most), whether its sessions show an unstable prompt prefix, and how much KV held over tool waits survived. Apart
   * from overview.fleet so that the table's figures need not wait for it (at most FLEET_FINDING_ROWS scopes).
   */
  fleetFindings: viewerProcedure.input(rangeInput).query(async ({ ctx, input }) => {
    const { from: rangeFrom, to } = resolveInput(input, ctx.now());
    const from = Math.max(rangeFrom, to - FLEET_WINDOW_MS);
    const s = ctx.store;
    const [groups, names] = await Promise.all([fleetRequestGroups(s, from, to), clusterNamesById(s)]);
    const rows = [];
    for (const g of groups.slice(0, FLEET_FINDING_ROWS)) {
      const f = await scopeFindings(s, from, to, { clusterId: g.clusterId, model: g.model });
      rows.push({
        cluster: names.get(g.clusterId) ?? `#${g.clusterId}`,
        model: g.model,
        unstablePrefix: f.unstablePrefix ? { sessionsAffected: f.unstablePrefix.sessionsAffected } : null,
        toolWaitSurvivedShare: f.toolWait?.survivedShare ?? null,
      });
    }
    return { from, to, rows, cut: groups.length > FLEET_FINDING_ROWS };
  }),

  /** The cards, of the whole fleet or of one cluster and/or model (requests by theirs, worker figures by its workers). */
  summary: viewerProcedure.input(scopedRangeInput).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input, ctx.now());
    const s = ctx.store;
    const f = await scopeFilter(s, from, to, scopeOfInput(input));
    const [
      { requests, ttftP50Ms, ttftP95Ms },
      prefix,
      decode,
      present,
      hasAnyData,
      activeSessions,
      droppedEvents,
      oldestUnattributed,
    ] = await Promise.all([
      requestStats(s, from, to, f.rs),
      prefixTokens(s, from, to, f.workers),
      decodeStats(s, from, to, undefined, f),
      latestWorkerSamples(s, Math.max(from, to - PRESENT_WINDOW_MS), to).then((rows) => keptWorkers(rows, f)),
      hasAnyTelemetry(s),
      sessionCount(s, Math.max(from, to - ACTIVE_WINDOW_MS), to, f.rs),
      droppedEventReports(s),
      oldestUnattributedOf(s, "ts"),
    ]);
    return {
      from,
      to,
      live,
      hasAnyData,
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
      activeSessions,
      workersByRole: workersByRole(present),
      workersPresent: present.length,
      droppedEvents,
      /** How far miss attribution is behind now (not the range): newer turns have no causes yet. */
      attribution: attributionLag(oldestUnattributed, ctx.now()),
    };
  }),

  /** The KPIs per time bucket (requests/s, TTFT p50, ITL p95, prefix hit rate, KV utilization) for sparklines. */
  trends: viewerProcedure.input(scopedRangeInput).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input, ctx.now());
    const step = bucketStep(to - from);
    const s = ctx.store;
    const f = await scopeFilter(s, from, to, scopeOfInput(input));
    const [workers, requests, itl] = await Promise.all([
      coveredTotalRows(s, { from, to, step, ...(f.workers ? { workers: f.workers } : {}) }),
      requestTrend(s, from, to, step, f.rs),
      itlTrend(s, from, to, step, f),
    ]);
    return {
      from,
      to,
      live,
      step,
      points: trendPoints({
        requests,
        workers,
        itl,
        step,
        from,
        to,
      }),
    };
  }),
});
