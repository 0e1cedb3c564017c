import "server-only";
import { z } from "zod";
import { publishedBetween } from "../../db/queries/control";
import { router, viewerProcedure } from "../trpc/init";
import { rangeInput, resolveInput } from "./range";

export const annotationsRouter = router({
  /** Policy versions published in the range ("retention v12 published"), for marking time-series charts. */
  policies: viewerProcedure.input(z.object({ range: rangeInput })).query(({ ctx, input }) => {
    const { from, to } = resolveInput(input.range, ctx.now());
    return publishedBetween(ctx.db, from, to).map((m) => ({ ...m, label: `${m.kind} v${m.version} published` }));
  }),
});
