import "server-only";
import { z } from "zod";
import { oldestUnattributedOf } from "../../db/store/attribution-lag";
import { policyRequestScope } from "../../db/store/scope";
import { getVersion } from "../../db/store/control";
import { acksFrom, guardsOf, type GuardRow } from "../../db/store/guards";
import { windowRows } from "../../db/store/impact";
import type { Store } from "../../db/store/store";
import { ackTimes, impactWindows, targetImpact, type TargetImpact } from "../analysis/impact";
import { MINUTE } from "../../lib/impact-window";
import { policyContentHash } from "../control/content-hash";
import { POLICY_KINDS, type PolicyKind } from "../../lib/policies/policies";
import { AppError } from "../errors";
import { DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { policyScopeName } from "../../lib/policy-scope";
import { latestPredictionFor } from "../preview/prediction";
import { viewerProcedure } from "../trpc/init";

const MAX_TARGETS = 20;

/** What the panels show of a guard. */
export function guardView(g: GuardRow) {
  return {
    ttftP95RisePct: g.ttftP95RisePct,
    hitRateDropPoints: g.hitRateDropPoints,
    windowMinutes: g.windowMinutes,
    state: g.state,
    message: g.message,
    reason: g.reason,
    appliedAt: g.appliedAt,
    checkedAt: g.checkedAt,
    rollbackVersion: g.rollbackVersion,
  };
}

/** Per target that acknowledged the version: its before/after windows measured at `now` (the windows read the store). */
async function targetsImpact(
  s: Store,
  cluster: string,
  kind: PolicyKind,
  version: number,
  lengthMs: number | null,
  now: number,
) {
  const pending = await oldestUnattributedOf(s, "arrivedAt");
  const acks = ackTimes(await acksFrom(s, cluster, kind, version), version).slice(0, MAX_TARGETS);
  return Promise.all(
    acks.map(async (a): Promise<TargetImpact> => {
      if (a.state === "rejected") return a;
      const windows = impactWindows(a.appliedAt, now, lengthMs, a.nextAppliedAt);
      const id = policyRequestScope(cluster);
      const [before, after] = await Promise.all([windowRows(s, windows.before, id), windowRows(s, windows.after, id)]);
      return targetImpact(a.target, a.appliedAt, windows, before, after, pending);
    }),
  );
}

export const impactProcedures = {
  /**
   * A published version's impact: per target, the metrics of equal windows before and after it applied the version
   * (windowMinutes null: min(time since the ack, 1 h)), the preview's prediction for the same content, and its guard.
   */
  impact: viewerProcedure
    .input(
      z.object({
        cluster: policyScopeName.default(DEFAULT_CLUSTER),
        kind: z.enum(POLICY_KINDS),
        version: z.number().int().min(1).max(1e9),
        windowMinutes: z.number().int().min(1).max(120).nullable().default(null),
      }),
    )
    .query(async ({ ctx, input }) => {
      const s = ctx.store;
      const stored = await getVersion(s, input.cluster, input.kind, input.version);
      if (!stored)
        throw new AppError("NOT_FOUND", `${input.kind} version ${input.version} of ${input.cluster} does not exist`);
      const now = ctx.now();
      const guard = (await guardsOf(s, input.cluster, input.kind, [input.version]))[0];
      const lengthMs = input.windowMinutes === null ? null : input.windowMinutes * MINUTE;
      return {
        cluster: input.cluster,
        kind: input.kind,
        version: input.version,
        now,
        prediction: await latestPredictionFor(s, input.kind, policyContentHash(input.kind, stored.document)),
        targets: await targetsImpact(s, input.cluster, input.kind, input.version, lengthMs, now),
        guard: guard ? guardView(guard) : null,
      };
    }),
};
