import { and, asc, eq, gte, inArray, isNull, lt } from "drizzle-orm";
import { clusterId } from "../ingest/clusters";
import type { AckRow } from "../rows/impact";
import { scopeParts } from "../../lib/policy-scope";
import type { Store } from "./store";

// Rows of policy_guards and policy_acks on either engine. What a guard decides and does (publish, trip, roll back) is
// server/control/guard-records.ts's; acks arrive as policy.ack events through ingest.

type T = Store["t"];
export type GuardRow = T["policyGuards"]["$inferSelect"];
export type NewGuard = T["policyGuards"]["$inferInsert"];
/** The key of a guard: the cluster, kind and version it guards. */
export type GuardKey = Pick<GuardRow, "cluster" | "kind" | "version">;
/** Columns a guard's evaluation updates. */
export type GuardUpdate = Partial<Omit<GuardRow, "cluster" | "kind" | "version" | "createdAt">>;

const OPEN = ["waiting", "watching"];

const keyOf = (g: T["policyGuards"], key: GuardKey) =>
  and(eq(g.cluster, key.cluster), eq(g.kind, key.kind), eq(g.version, key.version));

/** Store a new guard. */
export async function insertGuard(s: Store, row: NewGuard): Promise<void> {
  return s.tx(async (t) => {
    await t.db.insert(t.t.policyGuards).values(row);
  });
}

/** One guard, or undefined. */
export async function guardByKey(s: Store, key: GuardKey): Promise<GuardRow | undefined> {
  const g = s.t.policyGuards;
  return (await s.db.select().from(g).where(keyOf(g, key)).limit(1))[0];
}

/** Update a guard only while it is open (waiting or watching); true when it was. */
export async function updateOpenGuard(s: Store, key: GuardKey, set: GuardUpdate): Promise<boolean> {
  return s.tx(async (t) => {
    const g = t.t.policyGuards;
    const rows = await t.db
      .update(g)
      .set(set)
      .where(and(keyOf(g, key), inArray(g.state, OPEN)))
      .returning({ version: g.version });
    return rows.length > 0;
  });
}

/** Update a guard whatever its state. */
export async function updateGuard(s: Store, key: GuardKey, set: GuardUpdate): Promise<void> {
  return s.tx(async (t) => {
    const g = t.t.policyGuards;
    await t.db.update(g).set(set).where(keyOf(g, key));
  });
}

/** Guards still being evaluated (waiting for an ack or watching), oldest first (at most 100). */
export async function openGuards(s: Store): Promise<GuardRow[]> {
  const g = s.t.policyGuards;
  return s.db
    .select()
    .from(g)
    .where(inArray(g.state, OPEN))
    .orderBy(asc(g.createdAt), asc(g.kind), asc(g.version))
    .limit(100);
}

/** The guards of the given versions of a cluster's kind. */
export async function guardsOf(
  s: Store,
  cluster: string,
  kind: string,
  versions: readonly number[],
): Promise<GuardRow[]> {
  if (versions.length === 0) return [];
  const g = s.t.policyGuards;
  return s.db
    .select()
    .from(g)
    .where(and(eq(g.cluster, cluster), eq(g.kind, kind), inArray(g.version, [...versions])));
}

export type GuardRollback = {
  cluster: string;
  kind: string;
  version: number;
  rollbackVersion: number;
  reason: string | null;
};

/** Versions a tripped guard published in [from, to): the guarded version and why, for the charts' policy marks. */
export async function guardRollbacksBetween(s: Store, from: number, to: number): Promise<GuardRollback[]> {
  const { policyGuards: g, policyVersions: v } = s.t;
  const rows = await s.db
    .select({
      cluster: g.cluster,
      kind: g.kind,
      version: g.version,
      rollbackVersion: g.rollbackVersion,
      reason: g.reason,
    })
    .from(g)
    .innerJoin(v, and(eq(v.cluster, g.cluster), eq(v.kind, g.kind), eq(v.version, g.rollbackVersion)))
    .where(and(eq(g.state, "tripped"), gte(v.createdAt, from), lt(v.createdAt, to)))
    .limit(100);
  return rows.flatMap((r) => (r.rollbackVersion === null ? [] : [{ ...r, rollbackVersion: r.rollbackVersion }]));
}

/**
 * policy.ack rows of one policy scope (a cluster's acks that name no model, or those naming the scope's model) of one
 * kind for `version` and later versions, oldest first (bounded).
 */
export async function acksFrom(
  s: Store,
  scope: string,
  kind: string,
  version: number,
  limit = 2_000,
): Promise<AckRow[]> {
  const a = s.t.policyAcks;
  const parts = scopeParts(scope);
  return s.db
    .select({ target: a.target, version: a.version, status: a.status, ts: a.ts, message: a.message })
    .from(a)
    .where(
      and(
        eq(a.clusterId, clusterId(parts.cluster)),
        parts.model === null ? isNull(a.model) : eq(a.model, parts.model),
        eq(a.policyKind, kind),
        gte(a.version, version),
      ),
    )
    .orderBy(asc(a.ts), asc(a.id))
    .limit(limit);
}
