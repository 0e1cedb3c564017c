import type { Db } from "../../db/client";
import {
  appendAudit,
  deleteStatuses,
  getVersion,
  inWriteTransaction,
  insertVersion,
  latestVersion,
  storedTarget,
  writeTarget,
  type Conn,
  type TargetRow,
} from "../../db/queries/control";
import type { PolicyKind } from "./policies";
import { keepStoredSecret } from "./targets";
import { decidePublish, decideRollback, diffDocuments, type PublishDecision, type VersionRecord } from "./versions";

// The control plane's writes: read the rows in one write transaction, decide here (versions.ts, targets.ts), store
// what was decided through db/queries/control.ts.

export type PublishRequest = {
  kind: PolicyKind;
  document: unknown;
  baseVersion: number | null;
  author: string;
  comment: string;
  now: number;
};

function store<K extends PolicyKind>(
  tx: Conn,
  req: PublishRequest,
  decision: PublishDecision<K>,
  action: string,
  extra: Record<string, unknown>,
): void {
  if (!decision.ok) return;
  insertVersion(tx, {
    kind: req.kind,
    version: decision.version,
    document: decision.document,
    author: req.author,
    comment: req.comment,
    createdAt: req.now,
    basedOn: decision.basedOn,
  });
  appendAudit(tx, req.now, {
    actor: req.author,
    action,
    kind: req.kind,
    version: decision.version,
    detail: { comment: req.comment, changes: decision.diff.length, ...extra },
  });
}

/** Validate and store a new version atomically; a stale base or invalid document stores nothing. */
export function publishVersion<K extends PolicyKind>(db: Db, req: PublishRequest & { kind: K }): PublishDecision<K> {
  return inWriteTransaction(db, (tx) => {
    const latest = latestVersion(tx, req.kind);
    const base = req.baseVersion === null ? null : getVersion(tx, req.kind, req.baseVersion);
    const decision = decidePublish(req.kind, req.document, req.baseVersion, latest, base);
    store(tx, req, decision, "publish", {});
    return decision;
  });
}

/** Publish version `to`'s content as a new version on top of `baseVersion`; null when `to` does not exist. */
export function rollbackVersion<K extends PolicyKind>(
  db: Db,
  req: { kind: K; to: number; baseVersion: number; author: string; comment: string; now: number },
): PublishDecision<K> | null {
  return inWriteTransaction(db, (tx) => {
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
  });
}

/** Create or replace a target and audit it; a target at a new address or adapter is pushed every version again. */
export function upsertTarget(db: Db, target: TargetRow, actor: string, now: number): void {
  db.transaction((tx) => {
    const before = storedTarget(tx, target.id);
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
    writeTarget(tx, target.id, values, now);
    // A target at a new address (or a restarted one with a new token) holds none of our versions: push all again.
    if (before && (before.config !== values.config || before.adapter !== values.adapter)) deleteStatuses(tx, target.id);
    appendAudit(tx, now, { actor, action: "target.upsert", detail: { id: target.id, ...values, config: undefined } });
  });
}
