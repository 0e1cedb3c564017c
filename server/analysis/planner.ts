// Planner decisions grouped per role for the planner view. Pure.
import type { PlannerBucket } from "../../db/rows/planner";
export type { PlannerBucket } from "../../db/rows/planner";

export type RoleStart = { role: string; ts: number; replicas: number; up: number; down: number };

export type RoleSeries = {
  role: string;
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
 * One series per role that decided in the range or had decided before it, in the order prefill, decode,
 * aggregated, then by name; buckets in time order.
 */
export function plannerSeries(buckets: readonly PlannerBucket[], before: readonly RoleStart[]): RoleSeries[] {
  const byRole = new Map<string, RoleSeries>();
  const get = (role: string) => {
    let s = byRole.get(role);
    if (!s)
      byRole.set(
        role,
        (s = { role, metric: null, start: null, buckets: [], decisions: 0, scaleUps: 0, scaleDowns: 0 }),
      );
    return s;
  };
  for (const b of before) get(b.role).start = b;
  for (const b of buckets) {
    const s = get(b.role);
    s.metric ??= b.metric;
    s.buckets.push(b);
    s.decisions += b.decisions;
    s.scaleUps += b.ups;
    s.scaleDowns += b.downs;
  }
  for (const s of byRole.values()) s.buckets.sort((a, b) => a.t - b.t);
  return [...byRole.values()].sort((a, b) => rank(a.role) - rank(b.role) || a.role.localeCompare(b.role));
}
