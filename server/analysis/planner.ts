// Planner decisions grouped per role for the planner view. Pure.
import type { PlannerBucket } from "../../db/rows/planner";
export type { PlannerBucket } from "../../db/rows/planner";

export type RoleStart = { role: string; model: string | null; ts: number; replicas: number; up: number; down: number };

/** One planner's role: a cluster serving two models has a planner, and so a series, per model. */
export type RoleSeries = {
  role: string;
  model: string | null;
  metric: string | null;
  /** Replicas and thresholds in force at the start of the range (the last decision before it), or null. */
  start: RoleStart | null;
  buckets: PlannerBucket[];
  decisions: number;
  scaleUps: number;
  scaleDowns: number;
};

const ROLE_ORDER = ["prefill", "decode", "aggregated"];
const rank = (r: string) => (ROLE_ORDER.includes(r) ? ROLE_ORDER.indexOf(r) : ROLE_ORDER.length);

/**
 * One series per role (and model) that decided in the range or had decided before it, in the order prefill, decode,
 * aggregated, then by name, then by model; buckets in time order.
 */
export function plannerSeries(buckets: readonly PlannerBucket[], before: readonly RoleStart[]): RoleSeries[] {
  const byRole = new Map<string, RoleSeries>();
  const get = (role: string, model: string | null) => {
    const k = `${role}\u0000${model ?? ""}`;
    let s = byRole.get(k);
    if (!s)
      byRole.set(
        k,
        (s = { role, model, metric: null, start: null, buckets: [], decisions: 0, scaleUps: 0, scaleDowns: 0 }),
      );
    return s;
  };
  for (const b of before) get(b.role, b.model).start = b;
  for (const b of buckets) {
    const s = get(b.role, b.model);
    s.metric ??= b.metric;
    s.buckets.push(b);
    s.decisions += b.decisions;
    s.scaleUps += b.ups;
    s.scaleDowns += b.downs;
  }
  for (const s of byRole.values()) s.buckets.sort((a, b) => a.t - b.t);
  return [...byRole.values()].sort(
    (a, b) =>
      rank(a.role) - rank(b.role) || a.role.localeCompare(b.role) || (a.model ?? "").localeCompare(b.model ?? ""),
  );
}
