import "server-only";
import { z } from "zod";
import { publishedBetween } from "../../db/store/control";
import { guardRollbacksBetween } from "../../db/store/guards";
import { router, viewerProcedure } from "../trpc/init";
import { rangeInput, resolveInput } from "./range";

export const annotationsRouter = router({
  /**
   * Policy versions published in the range ("retention v12 published"; a guard's rollback reads "retention v7 rolled
   * back by guard: TTFT p95 +34%"), for marking time-series charts.
   */
  policies: viewerProcedure.input(z.object({ range: rangeInput })).query(async ({ ctx, input }) => {
    const { from, to } = resolveInput(input.range, ctx.now());
    const s = ctx.store;
    const rollbacks = new Map(
      (await guardRollbacksBetween(s, from, to)).map((g) => [`${g.kind} ${g.rollbackVersion}`, g]),
    );
    return (await publishedBetween(s, from, to)).map((m) => {
      const g = rollbacks.get(`${m.kind} ${m.version}`);
      const label = g
        ? `${m.kind} v${g.version} rolled back by guard${g.reason ? `: ${g.reason}` : ""}`
        : `${m.kind} v${m.version} published`;
      return { ...m, label };
    });
  }),
});
