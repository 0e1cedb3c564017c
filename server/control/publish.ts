import {
  appendAudit,
  deleteStatuses,
  deleteTarget,
  getVersion,
  insertVersion,
  latestVersion,
  latestVersionNumbers,
  listStatuses,
  storedTarget,
  writeTarget,
  type TargetRow,
} from "../../db/store/control";
import type { Store } from "../../db/store/store";
import { AppError } from "../errors";
import { rolloutView } from "./rollout";
import { TARGET_SECRET_FIELDS } from "../../lib/secret-fields";
import { sealConfig, secretKey } from "../auth/stored-secrets";
import type { PolicyKind } from "../../lib/policies/policies";
import {
  decidePublish,
  decideRollback,
  diffDocuments,
  type PublishDecision,
  type VersionRecord,
} from "../../lib/policies/versions";

// The control plane's writes on either engine: read the rows in one transaction, decide here (with versions.ts and
// targets.ts of lib/policies/), store what was decided through db/store/control.ts.

export type PublishRequest = {
  /** The cluster the version is for: its numbers, base and conflicts are that cluster's alone. */
  cluster: string;
  kind: PolicyKind;
  document: unknown;
  baseVersion: number | null;
  author: string;
  comment: string;
  now: number;
};

/** Decisions one publish may take: the first, and one more after another process took its number first. */
const MAX_DECISIONS = 3;

/**
 * Decide with `decide` over the rows as they are and store its version, atomically. When another process stored the
 * same version number first (the unique key refuses ours), decide again over the rows it left: a publish on a stale
 * base then reads as a conflict, so each stored version is exactly one publish's and no number is stored twice.
 */
async function decideAndStore<K extends PolicyKind>(
  s: Store,
  req: PublishRequest & { kind: K },
  decide: (tx: Store) => Promise<PublishDecision<K> | null>,
  action: string,
  extra: (d: PublishDecision<K> & { ok: true }) => Record<string, unknown>,
): Promise<PublishDecision<K> | null> {
  return s.tx(async (tx) => {
    for (let i = 0; i < MAX_DECISIONS; i++) {
      const decision = await decide(tx);
      if (!decision?.ok) return decision;
      const row = {
        cluster: req.cluster,
        kind: req.kind,
        version: decision.version,
        document: decision.document,
        basedOn: decision.basedOn,
      };
      if (!(await insertVersion(tx, { ...row, author: req.author, comment: req.comment, createdAt: req.now })))
        continue;
      await appendAudit(tx, req.now, {
        actor: req.author,
        action,
        cluster: req.cluster,
        kind: req.kind,
        version: decision.version,
        detail: { comment: req.comment, changes: decision.diff.length, ...extra(decision) },
      });
      return decision;
    }
    throw new Error(`${req.kind}: version number taken ${MAX_DECISIONS} times in a row by other publishes`);
  });
}

/** Validate and store a new version atomically; a stale base or invalid document stores nothing. */
export async function publishVersion<K extends PolicyKind>(
  s: Store,
  req: PublishRequest & { kind: K },
): Promise<PublishDecision<K>> {
  const decision = await decideAndStore(
    s,
    req,
    async (tx) => {
      const latest = await latestVersion(tx, req.cluster, req.kind);
      const base = req.baseVersion === null ? null : await getVersion(tx, req.cluster, req.kind, req.baseVersion);
      return decidePublish(req.kind, req.document, req.baseVersion, latest, base);
    },
    "publish",
    () => ({}),
  );
  return decision!;
}

/** Publish version `to`'s content as a new version on top of `baseVersion`; null when `to` does not exist. */
export async function rollbackVersion<K extends PolicyKind>(
  s: Store,
  req: { cluster: string; kind: K; to: number; baseVersion: number; author: string; comment: string; now: number },
): Promise<PublishDecision<K> | null> {
  let from = 0;
  return decideAndStore(
    s,
    { ...req, document: null },
    async (tx): Promise<PublishDecision<K> | null> => {
      const target = await getVersion(tx, req.cluster, req.kind, req.to);
      const latest = await latestVersion(tx, req.cluster, req.kind);
      if (!target || !latest) return null;
      from = latest.version;
      if (latest.version !== req.baseVersion) {
        const base = await getVersion(tx, req.cluster, req.kind, req.baseVersion);
        return {
          ok: false,
          reason: "conflict",
          latest: latest.version,
          base: req.baseVersion,
          diff: diffDocuments(base?.document ?? null, latest.document),
        };
      }
      return decideRollback(req.kind, target as VersionRecord, latest);
    },
    "rollback",
    () => ({ from, to: req.to }),
  );
}

/**
 * Create or replace a target and audit it (its config's secrets sealed, never in the audit); a target at a new address,
 * adapter or cluster is pushed every version (of its cluster) again. A secret sent back as SECRET_MARKER to another
 * origin is refused (BAD_REQUEST naming the field), and so is moving a target to another cluster while a push to it is
 * still in flight (CONFLICT: it would land one cluster's version on the other's target); nothing changes then.
 */
export async function upsertTarget(
  s: Store,
  target: TargetRow,
  actor: string,
  now: number,
  key: Buffer = secretKey(),
): Promise<void> {
  await s.tx(async (tx) => {
    const before = await storedTarget(tx, target.id);
    const stored = before ? (JSON.parse(before.config) as Record<string, unknown>) : null;
    const config = sealConfig(target.config, stored, TARGET_SECRET_FIELDS, key);
    if (before && before.cluster !== target.cluster) await refuseMoveInFlight(tx, before);
    const values = {
      name: target.name,
      cluster: target.cluster,
      adapter: target.adapter,
      config: JSON.stringify(config),
      kinds: JSON.stringify(target.kinds),
      enabled: target.enabled,
    };
    await writeTarget(tx, target.id, values, now);
    // A target at a new address (or a restarted one with a new token) holds none of our versions: push all again.
    if (
      before &&
      (before.config !== values.config || before.adapter !== values.adapter || before.cluster !== values.cluster)
    )
      await deleteStatuses(tx, target.id);
    await appendAudit(tx, now, {
      actor,
      action: "target.upsert",
      cluster: target.cluster,
      detail: { id: target.id, ...values, config: undefined },
    });
  });
}

/** CONFLICT when a stored target has a push pending or being retried (see rolloutView). */
async function refuseMoveInFlight(
  tx: Store,
  before: { id: string; name: string; cluster: string; kinds: string; enabled: boolean },
) {
  const [statuses, latest] = await Promise.all([listStatuses(tx), latestVersionNumbers(tx)]);
  const target: TargetRow = {
    id: before.id,
    name: before.name,
    cluster: before.cluster,
    adapter: "",
    config: {},
    kinds: JSON.parse(before.kinds) as PolicyKind[],
    enabled: before.enabled,
  };
  const inFlight = rolloutView([target], statuses, latest).filter((e) => IN_FLIGHT.has(e.state));
  if (inFlight.length === 0) return;
  const what = inFlight.map((e) => `${e.kind} v${e.latestVersion} (${e.state})`).join(", ");
  throw new AppError(
    "CONFLICT",
    `target ${before.id} cannot move from cluster ${before.cluster} while a rollout to it is in flight: ${what}; ` +
      "wait until it settles or disable the target first",
    { inFlight: inFlight.map((e) => ({ kind: e.kind, version: e.latestVersion, state: e.state })) },
  );
}

/** Rollout states of a push not yet settled. */
const IN_FLIGHT: ReadonlySet<string> = new Set(["pending", "unreachable"]);

/** Remove a target and its rollout rows, audited; false when it did not exist (nothing audited). */
export async function removeTarget(s: Store, id: string, actor: string, now: number): Promise<boolean> {
  return s.tx(async (tx) => {
    const before = await storedTarget(tx, id);
    if (!before || !(await deleteTarget(tx, id))) return false;
    await appendAudit(tx, now, { actor, action: "target.remove", cluster: before.cluster, detail: { id } });
    return true;
  });
}
