import { and, desc, eq, lt } from "drizzle-orm";
import type { PolicyKind } from "../../lib/policy-kinds";
import type { Db } from "../client";
import { controlAudit, controlTargets, policyVersions, rolloutStatus } from "../schema";

export const MAX_PAGE = 500;

export type StoredVersion = {
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
  adapter: string;
  config: Record<string, unknown>;
  kinds: PolicyKind[];
  enabled: boolean;
};
export type StatusRow = typeof rolloutStatus.$inferSelect;
export type AuditEntry = {
  actor: string;
  action: string;
  kind?: string | null;
  version?: number | null;
  detail?: unknown;
};
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** The database, or the transaction a caller runs these reads and writes in. */
export type Conn = Db | Tx;

function toVersion(row: typeof policyVersions.$inferSelect): StoredVersion {
  return { ...row, document: JSON.parse(row.document) as unknown };
}

/** The newest version of a kind, or null before the first publish. */
export function latestVersion(db: Conn, kind: string): StoredVersion | null {
  const row = db
    .select()
    .from(policyVersions)
    .where(eq(policyVersions.kind, kind))
    .orderBy(desc(policyVersions.version))
    .limit(1)
    .get();
  return row ? toVersion(row) : null;
}

/** One version of a kind, or null. */
export function getVersion(db: Conn, kind: string, version: number): StoredVersion | null {
  const row = db
    .select()
    .from(policyVersions)
    .where(and(eq(policyVersions.kind, kind), eq(policyVersions.version, version)))
    .get();
  return row ? toVersion(row) : null;
}

/** Versions of a kind, newest first, below `before` when given (a cursor). */
export function listVersions(db: Db, kind: string, limit: number, before?: number): StoredVersion[] {
  const where =
    before === undefined
      ? eq(policyVersions.kind, kind)
      : and(eq(policyVersions.kind, kind), lt(policyVersions.version, before));
  return db
    .select()
    .from(policyVersions)
    .where(where)
    .orderBy(desc(policyVersions.version))
    .limit(Math.min(limit, MAX_PAGE))
    .all()
    .map(toVersion);
}

/** The latest version number per kind that has one. */
export function latestVersionNumbers(db: Db): Partial<Record<string, number>> {
  const rows = db.$client.prepare("SELECT kind, max(version) AS version FROM policy_versions GROUP BY kind").all() as {
    kind: string;
    version: number;
  }[];
  return Object.fromEntries(rows.map((r) => [r.kind, r.version]));
}

export function appendAudit(db: Conn, ts: number, entry: AuditEntry): void {
  db.insert(controlAudit)
    .values({
      ts,
      actor: entry.actor,
      action: entry.action,
      kind: entry.kind ?? null,
      version: entry.version ?? null,
      detail: JSON.stringify(entry.detail ?? {}),
    })
    .run();
}

/** A new version as stored: the document already validated (server/control decides what to store). */
export type NewVersion = {
  kind: PolicyKind;
  version: number;
  document: unknown;
  author: string;
  comment: string;
  createdAt: number;
  basedOn: number | null;
};

/** Store one version; the (kind, version) key must be free. */
export function insertVersion(db: Conn, row: NewVersion): void {
  db.insert(policyVersions)
    .values({ ...row, document: JSON.stringify(row.document) })
    .run();
}

/**
 * Run `fn` in a transaction that takes the write lock up front: a deferred one that read under WAL while ingest
 * committed cannot upgrade (SQLITE_BUSY at once, busy_timeout does not apply), and the operator saw "internal error".
 */
export function inWriteTransaction<T>(db: Db, fn: (tx: Tx) => T): T {
  return db.transaction(fn, { behavior: "immediate" });
}

/** Audit entries, newest first, below id `before` when given. */
export function listAudit(db: Db, limit: number, before?: number) {
  return db
    .select()
    .from(controlAudit)
    .where(before === undefined ? undefined : lt(controlAudit.id, before))
    .orderBy(desc(controlAudit.id))
    .limit(Math.min(limit, MAX_PAGE))
    .all()
    .map((r) => ({ ...r, detail: JSON.parse(r.detail) as unknown }));
}

/** All targets in name order. */
export function listTargets(db: Db): TargetRow[] {
  return db
    .select()
    .from(controlTargets)
    .orderBy(controlTargets.name)
    .all()
    .map((r) => ({
      id: r.id,
      name: r.name,
      adapter: r.adapter,
      config: JSON.parse(r.config) as Record<string, unknown>,
      kinds: JSON.parse(r.kinds) as PolicyKind[],
      enabled: r.enabled,
    }));
}

/** A target's stored row (config and kinds as stored JSON), or undefined. */
export function storedTarget(db: Conn, id: string): typeof controlTargets.$inferSelect | undefined {
  return db.select().from(controlTargets).where(eq(controlTargets.id, id)).get();
}

/** A target's columns as stored: config and kinds JSON-encoded. */
export type TargetValues = { name: string; adapter: string; config: string; kinds: string; enabled: boolean };

/** Create or replace a target's row (`now` is its creation time when new). */
export function writeTarget(db: Conn, id: string, values: TargetValues, now: number): void {
  db.insert(controlTargets)
    .values({ id, createdAt: now, ...values })
    .onConflictDoUpdate({ target: controlTargets.id, set: values })
    .run();
}

/** Drop a target's rollout rows (every kind). */
export function deleteStatuses(db: Conn, targetId: string): void {
  db.delete(rolloutStatus).where(eq(rolloutStatus.targetId, targetId)).run();
}

/** Remove a target (and its rollout rows); false when it did not exist. */
export function removeTarget(db: Db, id: string, actor: string, now: number): boolean {
  return db.transaction((tx) => {
    const res = tx.delete(controlTargets).where(eq(controlTargets.id, id)).run();
    if (res.changes > 0) appendAudit(tx, now, { actor, action: "target.remove", detail: { id } });
    return res.changes > 0;
  });
}

/** Every rollout row. */
export function listStatuses(db: Db): StatusRow[] {
  return db.select().from(rolloutStatus).all();
}

/** Insert or replace one target's status for a kind. */
export function putStatus(db: Db, row: StatusRow): void {
  const { targetId, kind, ...rest } = row;
  db.insert(rolloutStatus)
    .values(row)
    .onConflictDoUpdate({ target: [rolloutStatus.targetId, rolloutStatus.kind], set: rest })
    .run();
}

export type PolicyMark = {
  ts: number;
  kind: string;
  version: number;
  author: string;
  comment: string;
  basedOn: number | null;
};

/** Versions published in [from, to), oldest first: the annotations of time-series charts. */
export function publishedBetween(db: Db, from: number, to: number, limit = 100): PolicyMark[] {
  return db.$client
    .prepare(
      `SELECT created_at AS ts, kind, version, author, comment, based_on AS basedOn FROM policy_versions
       WHERE created_at >= ? AND created_at < ? ORDER BY created_at, kind LIMIT ?`,
    )
    .all(from, to, limit) as PolicyMark[];
}
