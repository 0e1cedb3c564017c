import type { Db } from "../client";
import type { PlannerBucket } from "../rows/planner";

// Reads for the planner view. Every query takes a time range [from, to) (Unix ms) and is bounded.

export const MAX_PAGE = 100;
const MAX_BUCKET_ROWS = 5_000;

export type PlannerCursor = { ts: number; id: string };

export type PlannerListRow = {
  id: string;
  ts: number;
  role: string;
  metric: string;
  observed: number;
  scaleUpThreshold: number;
  scaleDownThreshold: number;
  action: string;
  replicasBefore: number;
  replicasAfter: number;
  reason: string;
};

/** One page of decisions in [from, to), newest first (ts, then id), after `cursor`; limit + 1 rows to tell if more follow. */
export function plannerPage(
  db: Db,
  opts: { from: number; to: number; cursor?: PlannerCursor; limit: number; role?: string; actionsOnly?: boolean },
): PlannerListRow[] {
  const { from, to, cursor, role, actionsOnly } = opts;
  const limit = Math.min(Math.max(1, opts.limit), MAX_PAGE) + 1;
  const after = cursor ? "AND (ts < @cts OR (ts = @cts AND id < @cid))" : "";
  const oneRole = role ? "AND role = @role" : "";
  const acted = actionsOnly ? "AND action <> 'none'" : "";
  return db.$client
    .prepare(
      `SELECT id, ts, role, metric, observed, scale_up_threshold AS scaleUpThreshold, scale_down_threshold AS scaleDownThreshold, action,
         replicas_before AS replicasBefore, replicas_after AS replicasAfter, reason
       FROM planner_decisions WHERE ts >= @from AND ts < @to ${after} ${oneRole} ${acted}
       ORDER BY ts DESC, id DESC LIMIT @limit`,
    )
    .all({ from, to, limit, cts: cursor?.ts ?? null, cid: cursor?.id ?? null, role: role ?? null }) as PlannerListRow[];
}

/**
 * Per role and bucket of `step` ms in [from, to): decisions, mean and peak observed metric, scale-ups and -downs,
 * and the thresholds and replicas after the bucket's last decision. Buckets without decisions are absent.
 */
export function plannerBuckets(db: Db, from: number, to: number, step: number): PlannerBucket[] {
  return db.$client
    .prepare(
      `WITH x AS (
         SELECT role, metric, ts - ts % @step AS t, scale_up_threshold AS up, scale_down_threshold AS down, replicas_after AS replicas,
           row_number() OVER (PARTITION BY role, ts - ts % @step ORDER BY ts DESC, id DESC) AS rn,
           count(*) OVER p AS decisions, avg(observed) OVER p AS observed, max(observed) OVER p AS peak,
           sum(action = 'scale_up') OVER p AS ups, sum(action = 'scale_down') OVER p AS downs
         FROM planner_decisions WHERE ts >= @from AND ts < @to
         WINDOW p AS (PARTITION BY role, ts - ts % @step))
       SELECT role, metric, t, decisions, observed, peak, up, down, replicas, ups, downs FROM x WHERE rn = 1 ORDER BY role, t LIMIT ${MAX_BUCKET_ROWS}`,
    )
    .all({ from, to, step }) as PlannerBucket[];
}

const ROLES = ["prefill", "decode", "aggregated"] as const;

/** Each role's last decision before `from`: the replicas and thresholds in force when the range starts. */
export function plannerBefore(
  db: Db,
  from: number,
): { role: string; ts: number; replicas: number; up: number; down: number }[] {
  const stmt = db.$client.prepare(
    `SELECT role, ts, replicas_after AS replicas, scale_up_threshold AS up, scale_down_threshold AS down
     FROM planner_decisions WHERE role = ? AND ts < ? ORDER BY ts DESC, id DESC LIMIT 1`,
  );
  return ROLES.flatMap(
    (role) =>
      (stmt.get(role, from) as { role: string; ts: number; replicas: number; up: number; down: number } | undefined) ??
      [],
  );
}
