import { and, desc, eq, lt } from "drizzle-orm";
import {
  decidePublish,
  decideRollback,
  diffDocuments,
  type PublishDecision,
  type VersionRecord,
} from "../../server/control/versions";
import type { PolicyKind } from "../../server/control/policies";
import { SECRET_MARKER } from "../../server/control/targets";
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
type Conn = Db | Tx;

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

export type PublishRequest = {
  kind: PolicyKind;
  document: unknown;
  baseVersion: number | null;
  author: string;
  comment: string;
  now: number;
};

function store<K extends PolicyKind>(
  tx: Tx,
  req: PublishRequest,
  decision: PublishDecision<K>,
  action: string,
  extra: Record<string, unknown>,
): void {
  if (!decision.ok) return;
  tx.insert(policyVersions)
    .values({
      kind: req.kind,
      version: decision.version,
      document: JSON.stringify(decision.document),
      author: req.author,
      comment: req.comment,
      createdAt: req.now,
      basedOn: decision.basedOn,
    })
    .run();
  appendAudit(tx, req.now, {
    actor: req.author,
    action,
    kind: req.kind,
    version: decision.version,
    detail: { comment: req.comment, changes: decision.diff.length, ...extra },
  });
}

/**
 * Read-then-write transactions take the write lock up front: a deferred one that read under WAL while ingest committed
 * cannot upgrade (SQLITE_BUSY at once, busy_timeout does not apply), and the operator saw "internal error".
 */
const IMMEDIATE = { behavior: "immediate" } as const;

/** Validate and store a new version atomically; a stale base or invalid document stores nothing. */
export function publishVersion<K extends PolicyKind>(db: Db, req: PublishRequest & { kind: K }): PublishDecision<K> {
  return db.transaction((tx) => {
    const latest = latestVersion(tx, req.kind);
    const base = req.baseVersion === null ? null : getVersion(tx, req.kind, req.baseVersion);
    const decision = decidePublish(req.kind, req.document, req.baseVersion, latest, base);
    store(tx, req, decision, "publish", {});
    return decision;
  }, IMMEDIATE);
}

/** Publish version `to`'s content as a new version on top of `baseVersion`; null when `to` does not exist. */
export function rollbackVersion<K extends PolicyKind>(
  db: Db,
  req: { kind: K; to: number; baseVersion: number; author: string; comment: string; now: number },
): PublishDecision<K> | null {
  return db.transaction((tx) => {
    const target = getVersion(tx, req.kind, req.to);
    const latest = latestVersion(tx, req.kind);
    if (!target || !latest) return null;
    if (latest.version !== req.baseVersion) {
      const base = getVersion(tx, req.kind, req.baseVersion);
      return {
        ok: false as const,
        reason: "conflict" as const,
        latest: latest.version,
        base: req.baseVersion,
        diff: diffDocuments(base?.document ?? null, latest.document),
      };
    }
    const decision = decideRollback(req.kind, target as VersionRecord, latest);
    store(tx, { ...req, document: target.document }, decision, "rollback", { from: latest.version, to: req.to });
    return decision;
  }, IMMEDIATE);
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

function keepStoredSecret(
  config: Record<string, unknown>,
  stored: Record<string, unknown> | null,
): Record<string, unknown> {
  return config.token === SECRET_MARKER && stored && typeof stored.token === "string"
    ? { ...config, token: stored.token }
    : config;
}

/** Create or replace a target and audit it. */
export function upsertTarget(db: Db, target: TargetRow, actor: string, now: number): void {
  db.transaction((tx) => {
    const before = tx.select().from(controlTargets).where(eq(controlTargets.id, target.id)).get();
    const config = keepStoredSecret(
      target.config,
      before ? (JSON.parse(before.config) as Record<string, unknown>) : null,
    );
    const values = {
      name: target.name,
      adapter: target.adapter,
      config: JSON.stringify(config),
      kinds: JSON.stringify(target.kinds),
      enabled: target.enabled,
    };
    tx.insert(controlTargets)
      .values({ id: target.id, createdAt: now, ...values })
      .onConflictDoUpdate({ target: controlTargets.id, set: values })
      .run();
    // A target at a new address (or a restarted one with a new token) holds none of our versions: push all again.
    if (before && (before.config !== values.config || before.adapter !== values.adapter))
      tx.delete(rolloutStatus).where(eq(rolloutStatus.targetId, target.id)).run();
    appendAudit(tx, now, { actor, action: "target.upsert", detail: { id: target.id, ...values, config: undefined } });
  });
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
