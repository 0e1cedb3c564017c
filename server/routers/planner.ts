import "server-only";
import { z } from "zod";
import { MAX_PAGE, plannerBefore, plannerBuckets, plannerPage } from "../../db/store/planner";
import { plannerSeries } from "../analysis/planner";
import { bucketStep } from "../analysis/workers";
import { MAX_ID } from "../ingest/events";
import { viewerProcedure, router } from "../trpc/init";
import { rangeInput, resolveInput, scopeFields } from "./range";
import { clusterName } from "../../lib/cluster-name";
import { clusterId } from "../../db/ingest/clusters";

const cursor = z.object({ ts: z.number().int().min(0), id: z.string().min(1).max(MAX_ID) });
const role = z.enum(["prefill", "decode", "aggregated"]);

export const plannerRouter = router({
  /** Planner decisions in the range, newest first, one page at a time, with the reason and the thresholds in force. */
  list: viewerProcedure
    .input(
      z.object({
        range: rangeInput,
        cursor: cursor.nullish(),
        limit: z.number().int().min(1).max(MAX_PAGE).default(25),
        role: role.optional(),
        actionsOnly: z.boolean().default(false),
        /** One cluster's planners, and/or one model's. */
        cluster: clusterName.optional(),
        model: scopeFields.shape.model,
      }),
    )
    .query(async ({ ctx, input }) => {
      const { from, to, live } = resolveInput(input.range, ctx.now());
      const rows = await plannerPage(ctx.store, {
        ...(input.cluster !== undefined ? { clusterId: clusterId(input.cluster) } : {}),
        ...(input.model !== undefined ? { model: input.model } : {}),
        from,
        to,
        cursor: input.cursor ?? undefined,
        limit: input.limit,
        role: input.role,
        actionsOnly: input.actionsOnly,
      });
      const items = rows.slice(0, input.limit);
      const last = items[items.length - 1];
      return {
        from,
        to,
        live,
        items,
        nextCursor: rows.length > input.limit && last ? { ts: last.ts, id: last.id } : null,
      };
    }),

  /** Per role and bucket: replicas, the observed metric and the thresholds in force, with scale actions counted. */
  series: viewerProcedure
    .input(z.object({ range: rangeInput, cluster: clusterName.optional(), model: scopeFields.shape.model }))
    .query(async ({ ctx, input }) => {
      const { from, to, live } = resolveInput(input.range, ctx.now());
      const step = bucketStep(to - from);
      const s = ctx.store;
      const id = input.cluster === undefined ? undefined : clusterId(input.cluster);
      const [buckets, before] = await Promise.all([
        plannerBuckets(s, from, to, step, id, input.model),
        plannerBefore(s, from, id, input.model),
      ]);
      return { from, to, live, step, roles: plannerSeries(buckets, before) };
    }),
});
