import "server-only";
import { z } from "zod";
import { publishedBetween } from "../../db/store/control";
import { guardRollbacksBetween } from "../../db/store/guards";
import { alertHistory } from "../../db/store/alerts";

/** Alert marks a chart shows at most (the newest). */
const MAX_ALERT_MARKS = 50;
import { router, viewerProcedure } from "../trpc/init";
import { rangeInput, resolveInput } from "./range";

export const annotationsRouter = router({
  /**
   * Policy versions published in the range ("retention v12 published"; a guard's rollback reads "retention v7 rolled
   * back by guard: TTFT p95 +34%") and alerts that fired or resolved in it, for marking time-series charts.
   */
  policies: viewerProcedure.input(z.object({ range: rangeInput })).query(async ({ ctx, input }) => {
    const { from, to } = resolveInput(input.range, ctx.now());
    const s = ctx.store;
    const rollbacks = new Map(
      (await guardRollbacksBetween(s, from, to)).map((g) => [`${g.kind} ${g.rollbackVersion}`, g]),
    );
    const versions = (await publishedBetween(s, from, to)).map((m) => {
      const g = rollbacks.get(`${m.kind} ${m.version}`);
      const label = g
        ? `${m.kind} v${g.version} rolled back by guard${g.reason ? `: ${g.reason}` : ""}`
        : `${m.kind} v${m.version} published`;
      return { ...m, label, href: undefined as string | undefined };
    });
    // Alerts that fired or resolved: "alert preemptions fired (pressure/w1)".
    const alerts = (await alertHistory(s, from, to, MAX_ALERT_MARKS)).reverse().map((e, i) => {
      const where = e.labels.worker
        ? `${e.labels.cluster ?? ""}/${e.labels.worker}`
        : (e.labels.cluster ?? e.labels.source ?? "");
      return {
        ts: e.ts,
        cluster: e.labels.cluster ?? "default",
        kind: "alert",
        version: i,
        author: "",
        comment: "",
        basedOn: null,
        label: `alert ${e.rule} ${e.kind}${where ? ` (${where.replace(/^default\//, "")})` : ""}`,
        href: `/alerts?rule=${encodeURIComponent(e.rule)}`,
      };
    });
    return [...versions, ...alerts].sort((a, b) => a.ts - b.ts);
  }),
});
