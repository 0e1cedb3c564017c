import type { PolicyKind } from "@/lib/policies/policies";
import type { RolloutEntry } from "./rollout-panel";

// Keeping the impact panel in step with the rollout table beside it. Both poll, at their own pace (impact 5 s, rollout
// 2 s), so just after a publish the table could say "in sync" while the panel still said no target had applied the
// version. The panel refetches as soon as the rollout has seen more targets answer its version than it shows. Pure.

type Row = Pick<RolloutEntry, "kind" | "latestVersion" | "state">;

/**
 * Targets whose rollout row says they answered `version` of `kind`: applied it (in sync) or refused it. Rows of a later
 * version say nothing about this one (the rollout only follows the latest).
 */
export function answeredTargets(rows: readonly Row[], kind: PolicyKind, version: number): number {
  let n = 0;
  for (const r of rows)
    if (r.kind === kind && r.latestVersion === version && (r.state === "in_sync" || r.state === "rejected")) n++;
  return n;
}

/** Whether the impact panel (showing `shown` targets; undefined: not loaded yet) is behind what the rollout has seen. */
export function impactBehind(answered: number, shown: number | undefined): boolean {
  return shown !== undefined && answered > shown;
}
