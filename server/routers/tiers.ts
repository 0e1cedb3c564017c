import "server-only";
import { z } from "zod";
import { cachedTierSums, kvbmRows, kvTierRows, requestTierRows, tierLevelsBefore } from "../../db/store/tiers";
import { cachedSplit, tierStep, workerTierView } from "../analysis/tiers";
import { MAX_ID } from "../ingest/events";
import { viewerProcedure, router } from "../trpc/init";
import { rangeInput, resolveInput } from "./range";

export const tiersRouter = router({
  /** Cluster cached tokens split by storage tier over the range; split is null when only device served them. */
  cluster: viewerProcedure.input(z.object({ range: rangeInput })).query(async ({ ctx, input }) => {
    const { from, to } = resolveInput(input.range, ctx.now());
    return { from, to, split: cachedSplit(await cachedTierSums(ctx.store, from, to)) };
  }),

  /** One worker's blocks per tier, offload/onboard rates and hit rate per tier, from tiered kv events, requests and KVBM scrapes. */
  worker: viewerProcedure
    .input(z.object({ id: z.string().min(1).max(MAX_ID), range: rangeInput }))
    .query(async ({ ctx, input }) => {
      const { from, to, live } = resolveInput(input.range, ctx.now());
      const step = tierStep(to - from);
      const s = ctx.store;
      const [kv, requests, kvbm, before] = await Promise.all([
        kvTierRows(s, input.id, from, to),
        requestTierRows(s, input.id, from, to),
        kvbmRows(s, input.id, from, to),
        tierLevelsBefore(s, input.id, from),
      ]);
      const view = workerTierView({ kv, requests, kvbm, before, from, to, step });
      return { from, to, live, ...view };
    }),
});
