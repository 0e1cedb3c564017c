import { and, eq } from "drizzle-orm";
import { unknownScopes, validateAlertRules } from "../../lib/alerts/rules";
import { DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { diffDocuments, type DiffEntry } from "../../lib/policies/versions";
import { splitWorkerKey } from "../../lib/worker-key";
import { clusterNames } from "../../db/store/clusters";
import { appendAudit, latestVersion } from "../../db/store/control";
import { workerModels } from "../../db/store/fleet";
import type { Store } from "../../db/store/store";
import { AppError } from "../errors";
import { ALERTS_KIND } from "./job";

// Publishing alert rules: validated field by field, every scope checked against what has reported (a rule scoped to
// a typo would never fire), stored as the next immutable version of the console's `alerts` document on top of the
// version the editor started from (a stale base is a conflict with what changed), and audited.

export type RulesPublish = {
  document: unknown;
  baseVersion: number | null;
  author: string;
  comment: string;
  now: number;
  /** What the audit log calls it ("rollback": an earlier version's content published again). */
  action?: "publish" | "rollback";
};
export type RulesOutcome =
  | { ok: true; version: number; diff: DiffEntry[] }
  | { ok: false; reason: "conflict"; latest: number; diff: DiffEntry[] };

export async function publishAlertRules(s: Store, p: RulesPublish): Promise<RulesOutcome> {
  const checked = validateAlertRules(p.document);
  if (!checked.ok)
    throw new AppError("BAD_REQUEST", "invalid alert rules", {
      errors: checked.errors.map((e) => ({ path: e.path ? `document.${e.path}` : "document", message: e.message })),
    });
  const [clusters, workers] = await Promise.all([clusterNames(s), workerModels(s)]);
  const unknown = unknownScopes(checked.document, {
    clusters: [DEFAULT_CLUSTER, ...clusters],
    models: [...new Set(workers.map((w) => w.model).filter((m): m is string => m !== null))],
    workers: workers.flatMap((w) => [w.workerId, splitWorkerKey(w.workerId).id]),
  });
  if (unknown.length)
    throw new AppError("BAD_REQUEST", `${unknown[0]!.path}: ${unknown[0]!.message}`, {
      errors: unknown.map((e) => ({ path: `document.${e.path}`, message: e.message })),
    });
  return s.tx(async (tx) => {
    const latest = await latestVersion(tx, DEFAULT_CLUSTER, ALERTS_KIND);
    if ((latest?.version ?? null) !== p.baseVersion) {
      const base =
        p.baseVersion === null
          ? null
          : (
              await tx.db
                .select()
                .from(tx.t.policyVersions)
                .where(
                  and(
                    eq(tx.t.policyVersions.cluster, DEFAULT_CLUSTER),
                    eq(tx.t.policyVersions.kind, ALERTS_KIND),
                    eq(tx.t.policyVersions.version, p.baseVersion),
                  ),
                )
            )[0];
      return {
        ok: false as const,
        reason: "conflict" as const,
        latest: latest!.version,
        diff: diffDocuments(base ? (JSON.parse(base.document) as unknown) : null, latest?.document ?? null),
      };
    }
    const version = (latest?.version ?? 0) + 1;
    const diff = diffDocuments(latest?.document ?? null, checked.document);
    await tx.db.insert(tx.t.policyVersions).values({
      cluster: DEFAULT_CLUSTER,
      kind: ALERTS_KIND,
      version,
      document: JSON.stringify(checked.document),
      author: p.author,
      comment: p.comment,
      createdAt: p.now,
      basedOn: latest?.version ?? null,
    });
    await appendAudit(tx, p.now, {
      actor: p.author,
      action: p.action ?? "publish",
      cluster: DEFAULT_CLUSTER,
      kind: ALERTS_KIND,
      version,
      detail: { comment: p.comment, diff },
    });
    return { ok: true as const, version, diff };
  });
}
