import "server-only";
import { z } from "zod";
import { decisionsPage, MAX_PAGE, requestSizedBuckets, workerBlockSizes } from "../../db/store/routing";
import { describeDecision, lossBuckets, recomputedSeries, routingLossSeries } from "../analysis/routing";
import { bucketStep } from "../analysis/workers";
import { decisionBuckets, tokenBuckets } from "../reads/routing";
import { MAX_ID } from "../ingest/events";
import { viewerProcedure, router } from "../trpc/init";
import { rangeInput, resolveInput, scopeFields, scopeOfInput } from "./range";
import { scopedWorkers } from "../reads/workers";
import { requestScopeOf } from "../../db/store/scope";
import { clusterId } from "../../db/ingest/clusters";
import { isWholeFleet } from "../../lib/scope";

const cursor = z.object({ ts: z.number().int().min(0), id: z.string().min(1).max(MAX_ID) });

export const routingRouter = router({
  /** Decisions in the range, newest first, one page at a time; each with ranked candidates and why the winner won. */
  list: viewerProcedure
    .input(
      z
        .object({
          range: rangeInput,
          cursor: cursor.nullish(),
          limit: z.number().int().min(1).max(MAX_PAGE).default(25),
          lossOnly: z.boolean().default(false),
        })
        .and(scopeFields),
    )
    .query(async ({ ctx, input }) => {
      const { from, to, live } = resolveInput(input.range, ctx.now());
      const scope = scopeOfInput(input);
      // A model's decisions are those its workers won; a cluster's carry its id.
      const workers =
        scope.model === undefined
          ? undefined
          : (await scopedWorkers(ctx.store, from, to, scope)).map((w) => w.workerId);
      const rows = await decisionsPage(ctx.store, {
        from,
        to,
        cursor: input.cursor ?? undefined,
        limit: input.limit,
        lossOnly: input.lossOnly,
        ...(scope.cluster !== undefined ? { clusterId: clusterId(scope.cluster) } : {}),
        ...(workers ? { workers } : {}),
      });
      const page = rows.slice(0, input.limit);
      const last = page[page.length - 1];
      const nextCursor = rows.length > input.limit && last ? { ts: last.ts, id: last.id } : null;
      return { from, to, live, items: page.map((r) => describeDecision(r)), nextCursor };
    }),

  /** Per bucket: routing loss, the overall recomputed share, and decisions won per worker; totals over the range. */
  series: viewerProcedure.input(z.object({ range: rangeInput }).and(scopeFields)).query(async ({ ctx, input }) => {
    const { from, to, live } = resolveInput(input.range, ctx.now());
    const s = ctx.store;
    const step = bucketStep(to - from);
    const scope = scopeOfInput(input);
    const kept = isWholeFleet(scope) ? null : new Set((await scopedWorkers(s, from, to, scope)).map((w) => w.workerId));
    const [all, tokens] = await Promise.all([
      decisionBuckets(s, from, to, step),
      tokenBuckets(s, from, to, step, requestScopeOf(scope)),
    ]);
    const rows = kept ? all.filter((r) => kept.has(r.workerId)) : all;
    const sizes = await workerBlockSizes(s, [...new Set(rows.map((r) => r.workerId))]);
    const unsized = [...new Set(rows.map((r) => r.workerId).filter((w) => !sizes.has(w)))];
    const fallback = unsized.length ? await requestSizedBuckets(s, from, to, step, unsized) : [];
    return {
      from,
      to,
      live,
      step,
      loss: routingLossSeries(lossBuckets(rows, sizes, fallback)),
      recomputed: recomputedSeries(tokens),
      share: rows.map(({ t, workerId, decisions }) => ({ t, workerId, decisions })),
    };
  }),
});
