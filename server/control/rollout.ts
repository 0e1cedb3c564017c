import type { LatestNumbers, StatusRow, TargetRow } from "../../db/store/control";
import type { PolicyError, PolicyKind } from "../../lib/policies/policies";
import type { RolloutState } from "./reconciler";

export type RolloutEntry = {
  targetId: string;
  targetName: string;
  cluster: string;
  enabled: boolean;
  kind: PolicyKind;
  latestVersion: number;
  appliedVersion: number | null;
  appliedAt: number | null;
  state: RolloutState;
  message: string | null;
  /** Field-level reasons of a rejection ({ path, message }), when the target gave them. */
  errors: PolicyError[];
  attempts: number;
  nextRetryAt: number | null;
  updatedAt: number | null;
};

/**
 * Per target and kind with a version published for the target's cluster: where the target stands against that
 * cluster's latest version (another cluster's versions are never its concern). A version the
 * reconciler has not tried yet reads pending (stale on a disabled target), whatever the previous push's outcome.
 */
export function rolloutView(
  targets: readonly TargetRow[],
  statuses: readonly StatusRow[],
  latest: LatestNumbers,
): RolloutEntry[] {
  const byKey = new Map(statuses.map((s) => [`${s.targetId}\u0000${s.kind}`, s]));
  const out: RolloutEntry[] = [];
  for (const t of targets) {
    const ofCluster = latest.get(t.cluster) ?? {};
    for (const kind of t.kinds) {
      const latestVersion = ofCluster[kind];
      if (latestVersion === undefined) continue;
      const s = byKey.get(`${t.id}\u0000${kind}`);
      const untried = !s || s.desiredVersion !== latestVersion;
      const state: RolloutState =
        s?.appliedVersion === latestVersion
          ? "in_sync"
          : untried
            ? t.enabled
              ? "pending"
              : "stale"
            : (s.state as RolloutState);
      out.push({
        targetId: t.id,
        targetName: t.name,
        cluster: t.cluster,
        enabled: t.enabled,
        kind,
        latestVersion,
        appliedVersion: s?.appliedVersion ?? null,
        appliedAt: s?.appliedAt ?? null,
        state,
        message: untried || state === "in_sync" ? null : (s.message ?? null),
        errors: state === "rejected" && s?.errors ? (JSON.parse(s.errors) as PolicyError[]) : [],
        attempts: untried ? 0 : s.attempts,
        nextRetryAt: state === "unreachable" ? (s?.nextRetryAt ?? null) : null,
        updatedAt: s?.updatedAt ?? null,
      });
    }
  }
  return out;
}
