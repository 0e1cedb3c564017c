import { and, isNull, asc, desc, eq, gte, lt, ne, or, sql } from "drizzle-orm";
import type { PlannerBucket } from "../rows/planner";
import { binary } from "./session-list";
import { bucketOf, num } from "./sql";
import type { Store } from "./store";

// Reads for the planner view on either engine. Every query takes a time range [from, to) (Unix ms) and is bounded.

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

/**
 * One page of decisions in [from, to), newest first (ts, then id byte by byte), after `cursor`; limit + 1 rows to
 * tell if more follow.
 */
export async function plannerPage(
  s: Store,
  opts: {
    from: number;
    to: number;
    cursor?: PlannerCursor;
    limit: number;
    role?: string;
    actionsOnly?: boolean;
    /** One cluster's decisions (its id), and/or one model's planner. */
    clusterId?: number;
    model?: string;
  },
): Promise<PlannerListRow[]> {
  const d = s.t.plannerDecisions;
  const { from, to, cursor, role, actionsOnly } = opts;
  const limit = Math.min(Math.max(1, opts.limit), MAX_PAGE) + 1;
  const id = binary(s, sql`${d.id}`);
  return s.db
    .select({
      id: d.id,
      ts: d.ts,
      role: d.role,
      metric: d.metric,
      observed: d.observed,
      scaleUpThreshold: d.scaleUpThreshold,
      scaleDownThreshold: d.scaleDownThreshold,
      action: d.action,
      replicasBefore: d.replicasBefore,
      replicasAfter: d.replicasAfter,
      reason: d.reason,
    })
    .from(d)
    .where(
      and(
        gte(d.ts, from),
        lt(d.ts, to),
        cursor ? or(lt(d.ts, cursor.ts), and(eq(d.ts, cursor.ts), sql`${id} < ${cursor.id}`)) : undefined,
        role ? eq(d.role, role) : undefined,
        actionsOnly ? ne(d.action, "none") : undefined,
        opts.clusterId === undefined ? undefined : eq(d.clusterId, opts.clusterId),
        opts.model === undefined ? undefined : eq(d.model, opts.model),
      ),
    )
    .orderBy(desc(d.ts), sql`${id} DESC`)
    .limit(limit);
}

/**
 * Per role and bucket of `step` ms in [from, to): decisions, mean and peak observed metric, scale-ups and -downs,
 * and the thresholds and replicas after the bucket's last decision (latest ts, then greatest id byte by byte).
 * Buckets without decisions are absent; ordered by role, then bucket.
 */
export async function plannerBuckets(
  s: Store,
  from: number,
  to: number,
  step: number,
  clusterId?: number,
  model?: string,
): Promise<PlannerBucket[]> {
  const d = s.t.plannerDecisions;
  const t = bucketOf(d.ts, step);
  // Per model too: a cluster serving two models runs a planner for each.
  const p = sql`PARTITION BY ${d.role}, ${d.model}, ${t}`;
  const x = s.db
    .select({
      role: d.role,
      model: d.model,
      metric: d.metric,
      t: t.as("t"),
      up: sql<number>`${d.scaleUpThreshold}`.as("up"),
      down: sql<number>`${d.scaleDownThreshold}`.as("down"),
      replicas: sql<number>`${d.replicasAfter}`.as("replicas"),
      rn: sql<number>`row_number() OVER (${p} ORDER BY ${d.ts} DESC, ${binary(s, sql`${d.id}`)} DESC)`.as("rn"),
      decisions: sql<number>`count(*) OVER (${p})`.as("decisions"),
      observed: sql<number>`avg(${d.observed}) OVER (${p})`.as("observed"),
      peak: sql<number>`max(${d.observed}) OVER (${p})`.as("peak"),
      ups: sql<number>`sum(CASE WHEN ${d.action} = 'scale_up' THEN 1 ELSE 0 END) OVER (${p})`.as("ups"),
      downs: sql<number>`sum(CASE WHEN ${d.action} = 'scale_down' THEN 1 ELSE 0 END) OVER (${p})`.as("downs"),
    })
    .from(d)
    .where(
      and(
        gte(d.ts, from),
        lt(d.ts, to),
        clusterId === undefined ? undefined : eq(d.clusterId, clusterId),
        model === undefined ? undefined : eq(d.model, model),
      ),
    )
    .as("x");
  return s.db
    .select({
      role: x.role,
      model: x.model,
      metric: x.metric,
      t: num(sql`${x.t}`),
      decisions: num(sql`${x.decisions}`),
      observed: num(sql`${x.observed}`),
      peak: num(sql`${x.peak}`),
      up: num(sql`${x.up}`),
      down: num(sql`${x.down}`),
      replicas: num(sql`${x.replicas}`),
      ups: num(sql`${x.ups}`),
      downs: num(sql`${x.downs}`),
    })
    .from(x)
    .where(eq(x.rn, 1))
    .orderBy(asc(binary(s, sql`${x.role}`)), asc(binary(s, sql`coalesce(${x.model}, '')`)), asc(x.t))
    .limit(MAX_BUCKET_ROWS);
}

const ROLES = ["prefill", "decode", "aggregated"] as const;

/** Models whose planner decided before `from` (of a cluster), at most this many. */
const MAX_PLANNER_MODELS = 32;

/**
 * Each role's (and model's) last decision before `from`: the replicas and thresholds in force when the range starts.
 * Of one cluster and/or model when given.
 */
export async function plannerBefore(
  s: Store,
  from: number,
  clusterId?: number,
  model?: string,
): Promise<{ role: string; model: string | null; ts: number; replicas: number; up: number; down: number }[]> {
  const d = s.t.plannerDecisions;
  const inCluster = clusterId === undefined ? undefined : eq(d.clusterId, clusterId);
  const models: (string | null)[] =
    model !== undefined
      ? [model]
      : (
          await s.db
            .selectDistinct({ m: d.model })
            .from(d)
            .where(and(lt(d.ts, from), inCluster))
            .limit(MAX_PLANNER_MODELS)
        ).map((r) => r.m);
  const rows = await Promise.all(
    ROLES.flatMap((role) =>
      models.map((m) =>
        s.db
          .select({
            role: d.role,
            model: d.model,
            ts: d.ts,
            replicas: d.replicasAfter,
            up: d.scaleUpThreshold,
            down: d.scaleDownThreshold,
          })
          .from(d)
          .where(and(eq(d.role, role), lt(d.ts, from), inCluster, m === null ? isNull(d.model) : eq(d.model, m)))
          .orderBy(desc(d.ts), sql`${binary(s, sql`${d.id}`)} DESC`)
          .limit(1),
      ),
    ),
  );
  return rows.flat();
}
