import { and, asc, desc, eq, gte, lt, max, ne } from "drizzle-orm";
import type { PolicyKind } from "../../lib/policy-kinds";
import type { Store } from "./store";

// Rows of the control plane on either engine: policy versions, push targets, rollout status and the audit log.
// Rows in, rows out: what to publish, roll back or push is server/control's. Times are Unix ms.

export const MAX_PAGE = 500;

type T = Store["t"];
export type StatusRow = T["rolloutStatus"]["$inferSelect"];
type TargetStored = T["controlTargets"]["$inferSelect"];

export type StoredVersion = {
  cluster: string;
  kind: string;
  version: number;
  document: unknown;
  author: string;
  comment: string;
  createdAt: number;
  basedOn: number | null;
};
export type TargetRow = {
  id: string;
  name: string;
  /** The cluster whose versions it receives. */
  cluster: string;
  adapter: string;
  config: Record<string, unknown>;
  kinds: PolicyKind[];
  enabled: boolean;
};
export type AuditEntry = {
  actor: string;
  action: string;
  cluster?: string | null;
  kind?: string | null;
  version?: number | null;
  detail?: unknown;
};
/** A new version as stored: the document already validated (server/control decides what to store). */
export type NewVersion = {
  cluster: string;
  kind: PolicyKind;
  version: number;
  document: unknown;
  author: string;
  comment: string;
  createdAt: number;
  basedOn: number | null;
};
/** A target's columns as stored: config and kinds JSON-encoded. */
export type TargetValues = {
  name: string;
  cluster: string;
  adapter: string;
  config: string;
  kinds: string;
  enabled: boolean;
};

function toVersion(row: T["policyVersions"]["$inferSelect"]): StoredVersion {
  return { ...row, document: JSON.parse(row.document) as unknown };
}

/** The newest version of a cluster's kind, or null before the first publish. */
export async function latestVersion(s: Store, cluster: string, kind: string): Promise<StoredVersion | null> {
  const { policyVersions: v } = s.t;
  const rows = await s.db
    .select()
    .from(v)
    .where(and(eq(v.cluster, cluster), eq(v.kind, kind)))
    .orderBy(desc(v.version))
    .limit(1);
  return rows[0] ? toVersion(rows[0]) : null;
}

/** One version of a cluster's kind, or null. */
export async function getVersion(
  s: Store,
  cluster: string,
  kind: string,
  version: number,
): Promise<StoredVersion | null> {
  const { policyVersions: v } = s.t;
  const rows = await s.db
    .select()
    .from(v)
    .where(and(eq(v.cluster, cluster), eq(v.kind, kind), eq(v.version, version)))
    .limit(1);
  return rows[0] ? toVersion(rows[0]) : null;
}

/** Versions of a cluster's kind, newest first, below `before` when given (a cursor); at most MAX_PAGE. */
export async function listVersions(
  s: Store,
  cluster: string,
  kind: string,
  limit: number,
  before?: number,
): Promise<StoredVersion[]> {
  const { policyVersions: v } = s.t;
  const rows = await s.db
    .select()
    .from(v)
    .where(and(eq(v.cluster, cluster), eq(v.kind, kind), before === undefined ? undefined : lt(v.version, before)))
    .orderBy(desc(v.version))
    .limit(Math.min(limit, MAX_PAGE));
  return rows.map(toVersion);
}

/** The latest version numbers of every cluster's kinds: `latest.get(cluster)?.[kind]`. */
export type LatestNumbers = ReadonlyMap<string, Partial<Record<string, number>>>;

/** The latest version number per cluster and kind that has one. */
export async function latestVersionNumbers(s: Store): Promise<LatestNumbers> {
  const { policyVersions: v } = s.t;
  const rows = await s.db
    .select({ cluster: v.cluster, kind: v.kind, version: max(v.version) })
    .from(v)
    .groupBy(v.cluster, v.kind);
  const out = new Map<string, Partial<Record<string, number>>>();
  for (const r of rows) {
    if (r.version === null) continue;
    const of = out.get(r.cluster) ?? {};
    of[r.kind] = r.version;
    out.set(r.cluster, of);
  }
  return out;
}

/** The clusters that have a policy version or a target, in name order (at most MAX_PAGE). */
export async function policyClusters(s: Store): Promise<string[]> {
  const { policyVersions: v, controlTargets: c } = s.t;
  const [versions, targets] = await Promise.all([
    s.db.selectDistinct({ cluster: v.cluster }).from(v).limit(MAX_PAGE),
    s.db.selectDistinct({ cluster: c.cluster }).from(c).limit(MAX_PAGE),
  ]);
  return [...new Set([...versions, ...targets].map((r) => r.cluster))].sort().slice(0, MAX_PAGE);
}

/**
 * Store one version unless its (kind, version) is taken: false when another writer stored that number first (the
 * unique key decides between two processes publishing at once; on PostgreSQL the loser waits for the winner's commit).
 */
export async function insertVersion(s: Store, row: NewVersion): Promise<boolean> {
  return s.tx(async (t) => {
    const { policyVersions: v } = t.t;
    const stored = await t.db
      .insert(v)
      .values({ ...row, document: JSON.stringify(row.document) })
      .onConflictDoNothing()
      .returning({ version: v.version });
    return stored.length === 1;
  });
}

export async function appendAudit(s: Store, ts: number, entry: AuditEntry): Promise<void> {
  return s.tx(async (t) => {
    await t.db.insert(t.t.controlAudit).values({
      ts,
      actor: entry.actor,
      action: entry.action,
      cluster: entry.cluster ?? null,
      kind: entry.kind ?? null,
      version: entry.version ?? null,
      detail: JSON.stringify(entry.detail ?? {}),
    });
  });
}

/** Audit entries, newest first, below id `before` when given, of one cluster when given; at most MAX_PAGE. */
export async function listAudit(s: Store, limit: number, before?: number, cluster?: string) {
  const { controlAudit: a } = s.t;
  const rows = await s.db
    .select()
    .from(a)
    .where(
      and(
        before === undefined ? undefined : lt(a.id, before),
        cluster === undefined ? undefined : eq(a.cluster, cluster),
      ),
    )
    .orderBy(desc(a.id))
    .limit(Math.min(limit, MAX_PAGE));
  return rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as unknown }));
}

/** All targets in name order. */
export async function listTargets(s: Store): Promise<TargetRow[]> {
  const { controlTargets: c } = s.t;
  const rows = await s.db.select().from(c).orderBy(asc(c.name), asc(c.id)).limit(MAX_PAGE);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    cluster: r.cluster,
    adapter: r.adapter,
    config: JSON.parse(r.config) as Record<string, unknown>,
    kinds: JSON.parse(r.kinds) as PolicyKind[],
    enabled: r.enabled,
  }));
}

/** A target's stored row (config and kinds as stored JSON), or undefined. */
export async function storedTarget(s: Store, id: string): Promise<TargetStored | undefined> {
  const { controlTargets: c } = s.t;
  return (await s.db.select().from(c).where(eq(c.id, id)).limit(1))[0];
}

/** Create or replace a target's row (`now` is its creation time when new). */
export async function writeTarget(s: Store, id: string, values: TargetValues, now: number): Promise<void> {
  return s.tx(async (t) => {
    const { controlTargets: c } = t.t;
    await t.db
      .insert(c)
      .values({ id, createdAt: now, ...values })
      .onConflictDoUpdate({ target: c.id, set: values });
  });
}

/** Every target's id and stored config JSON, held for update on PostgreSQL (a pass that rewrites configs). */
export async function targetConfigsForUpdate(s: Store): Promise<{ id: string; config: string }[]> {
  const { controlTargets: c } = s.t;
  const q = s.db.select({ id: c.id, config: c.config }).from(c).orderBy(asc(c.id));
  return s.engine === "pg" ? q.for("update") : q;
}

/** Replace one target's stored config JSON, nothing else. */
export async function setTargetConfig(s: Store, id: string, config: string): Promise<void> {
  return s.tx(async (t) => {
    const { controlTargets: c } = t.t;
    await t.db.update(c).set({ config }).where(eq(c.id, id));
  });
}

/** Delete a target (its rollout rows go with it); false when it did not exist. */
export async function deleteTarget(s: Store, id: string): Promise<boolean> {
  return s.tx(async (t) => {
    const { controlTargets: c, rolloutStatus: r } = t.t;
    await t.db.delete(r).where(eq(r.targetId, id));
    return (await t.db.delete(c).where(eq(c.id, id)).returning({ id: c.id })).length === 1;
  });
}

/** Drop a target's rollout rows (every kind). */
export async function deleteStatuses(s: Store, targetId: string): Promise<void> {
  return s.tx(async (t) => {
    const { rolloutStatus: r } = t.t;
    await t.db.delete(r).where(eq(r.targetId, targetId));
  });
}

/** Every rollout row (one per target and kind, so bounded by the targets). */
export async function listStatuses(s: Store): Promise<StatusRow[]> {
  const { rolloutStatus: r } = s.t;
  return s.db.select().from(r).orderBy(asc(r.targetId), asc(r.kind));
}

/**
 * Insert or replace one target's status for a kind. In a transaction of its own (or the caller's): the reconciler
 * writes these on the dashboard's event loop, and a bare statement there would wait for an ingest or attribution
 * batch's write lock inside SQLite (blocking the thread) and fail "database is locked" after the connection's 250 ms.
 */
export async function putStatus(s: Store, row: StatusRow): Promise<void> {
  const { targetId: _t, kind: _k, ...rest } = row;
  await s.tx(async (t) => {
    const { rolloutStatus: r } = t.t;
    await t.db
      .insert(r)
      .values(row)
      .onConflictDoUpdate({ target: [r.targetId, r.kind], set: rest });
  });
}

export type PolicyMark = {
  ts: number;
  cluster: string;
  kind: string;
  version: number;
  author: string;
  comment: string;
  basedOn: number | null;
};

/** Versions of the pushed policy kinds published in [from, to), oldest first: the annotations of time-series charts
 * (alert rules, also stored as versions, change nothing the charts show). */
export async function publishedBetween(s: Store, from: number, to: number, limit = 100): Promise<PolicyMark[]> {
  const { policyVersions: v } = s.t;
  return s.db
    .select({
      ts: v.createdAt,
      cluster: v.cluster,
      kind: v.kind,
      version: v.version,
      author: v.author,
      comment: v.comment,
      basedOn: v.basedOn,
    })
    .from(v)
    .where(and(gte(v.createdAt, from), lt(v.createdAt, to), ne(v.kind, "alerts")))
    .orderBy(asc(v.createdAt), asc(v.kind), asc(v.version))
    .limit(limit);
}
