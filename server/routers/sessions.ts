import "server-only";
import { z } from "zod";
import { clusterName } from "../../lib/cluster-name";
import { MAX_MODEL } from "../../lib/scope";
import { clusterId } from "../../db/ingest/clusters";
import { causeBuckets } from "../../db/store/causes";
import { sessionFacets, sessionsPage, SORTS, type SortKey } from "../../db/store/session-list";
import { decisionOf } from "../../db/store/trace";
import { describeDecision } from "../analysis/routing";
import { bucketStep } from "../analysis/workers";
import { MAX_ID } from "../ingest/events";
import { sessionTrace } from "../reads/session-trace";
import { viewerProcedure, router } from "../trpc/init";
import { rangeInput, resolveInput, scopeFields, scopeOfInput } from "./range";
import { requestScopeOf } from "../../db/store/scope";
import { scopeFindings } from "../reads/findings";

const sortKeys = Object.keys(SORTS) as [SortKey, ...SortKey[]];

/** The sessions list filter; the same schema validates the CSV export's query. */
export const listInput = z.object({
  range: rangeInput,
  harness: z.string().max(64).nullish(),
  sessionType: z.string().max(64).nullish(),
  status: z.enum(["active", "ended", "error"]).nullish(),
  minTurns: z.number().int().min(0).max(1_000_000).nullish(),
  minHit: z.number().min(0).max(1).nullish(),
  maxHit: z.number().min(0).max(1).nullish(),
  hasSubagents: z.boolean().nullish(),
  workerId: z.string().max(MAX_ID).nullish(),
  search: z.string().max(MAX_ID).nullish(),
  /** Sessions with a request of this cluster and/or model (the page's scope). */
  cluster: clusterName.nullish(),
  model: z.string().min(1).max(MAX_MODEL).nullish(),
  sort: z.enum(sortKeys).default("lastAt"),
  dir: z.enum(["asc", "desc"]).default("desc"),
  cursor: z.object({ v: z.union([z.number(), z.string().max(MAX_ID)]), id: z.string().max(MAX_ID) }).nullish(),
  limit: z.number().int().min(1).max(500).default(50),
});

const sessionId = z.object({ id: z.string().min(1).max(MAX_ID) });

export const sessionsRouter = router({
  /** Session summaries matching the filters, sorted by a whitelisted column, one keyset page at a time. */
  list: viewerProcedure.input(listInput).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input.range, ctx.now());
    const s = ctx.store;
    const [rows, facets] = await Promise.all([
      sessionsPage(
        s,
        { ...input, from, to, now: ctx.now(), clusterId: input.cluster ? clusterId(input.cluster) : null },
        input.sort,
        input.dir,
        input.limit,
        input.cursor,
      ),
      sessionFacets(s),
    ]);
    const items = rows.slice(0, input.limit).map(({ sortValue: _, ...r }) => r);
    const last = rows[input.limit - 1];
    return {
      from,
      to,
      live,
      items,
      nextCursor: rows.length > input.limit && last ? { v: last.sortValue, id: last.sessionId } : null,
      facets,
    };
  }),

  /** One session assembled for the trace: lanes per trajectory, turns with causes and routing, tools and reasoning. */
  byId: viewerProcedure.input(sessionId).query(({ ctx, input }) => sessionTrace(ctx.store, input.id)),

  /** One turn's routing decision with every candidate ranked and why the winner won; null without a decision. */
  decision: viewerProcedure
    .input(z.object({ requestId: z.string().min(1).max(MAX_ID) }))
    .query(async ({ ctx, input }) => {
      const row = await decisionOf(ctx.store, input.requestId);
      return row ? describeDecision(row, 500) : null;
    }),

  /** Findings over sessions active in the range: an unstable prefix, and KV held while agents waited on tools. */
  findings: viewerProcedure.input(z.object({ range: rangeInput }).and(scopeFields)).query(async ({ ctx, input }) => {
    const { from, to } = resolveInput(input.range, ctx.now());
    return { from, to, ...(await scopeFindings(ctx.store, from, to, requestScopeOf(scopeOfInput(input)))) };
  }),

  /** Cluster-wide recomputed tokens by cause per bucket over the range. */
  causeSeries: viewerProcedure.input(z.object({ range: rangeInput })).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input.range, ctx.now());
    const step = Math.max(60_000, bucketStep(to - from));
    return { from, to, live, step, points: await causeBuckets(ctx.store, from, to, step) };
  }),
});
