import "server-only";
import { z } from "zod";
import {
  getVersion,
  latestVersion,
  latestVersionNumbers,
  listAudit,
  policyClusters,
  listStatuses,
  listTargets,
  listVersions,
  MAX_PAGE,
} from "../../db/store/control";
import { guardsOf } from "../../db/store/guards";
import type { Store } from "../../db/store/store";
import { guardInput } from "../../lib/policies/guard-input";
import { publishGuarded } from "../control/guard-records";
import { policySchemas, POLICY_KINDS, type PolicyKind } from "../../lib/policies/policies";
import { rolloutView } from "../control/rollout";
import { removeTarget, rollbackVersion, upsertTarget } from "../control/publish";
import { redactConfig, targetInput } from "../../lib/policies/targets";
import { diffDocuments, type PublishDecision } from "../../lib/policies/versions";
import { AppError } from "../errors";
import { DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { policyScope, policyScopeName, scopeParts } from "../../lib/policy-scope";
import { clusterNames } from "../../db/store/clusters";
import { workerModels } from "../../db/store/fleet";
import { fleetScopes } from "../analysis/fleet";
import { inspectConfinedFile } from "../files/confined-path";
import { targetFolder, unprocessableIfRefused } from "../files/folders";
import { assertOutboundConfig } from "../outbound/assert";
import { operatorProcedure, router, viewerProcedure } from "../trpc/init";
import { guardView, impactProcedures } from "./policy-impact";

const kind = z.enum(POLICY_KINDS);
/**
 * The scope a procedure reads or writes the policies of: a cluster, or `cluster@model` for one model of it ("default"
 * when not given). The field keeps the name `cluster` it had before model scopes.
 */
const cluster = policyScopeName.default(DEFAULT_CLUSTER);
const version = z.number().int().min(1).max(1e9);
const comment = z.string().max(2000).default("");
const meta = { cluster, baseVersion: version.nullable(), comment, guard: guardInput.nullable().default(null) };

/** Who made a change, for versions and the audit log: the signed-in user or token, never what the client says. */
const authorOf = (ctx: { actor?: { name: string } | null }) => ctx.actor?.name ?? "system";

const publishInput = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("retention"), document: policySchemas.retention, ...meta }),
  z.object({ kind: z.literal("autoscaling"), document: policySchemas.autoscaling, ...meta }),
  z.object({ kind: z.literal("routing"), document: policySchemas.routing, ...meta }),
  z.object({ kind: z.literal("frontend"), document: policySchemas.frontend, ...meta }),
]);

/** A stored decision as the procedure's answer; a conflict carries what changed since the base. */
function outcome<K extends PolicyKind>(decision: PublishDecision<K>) {
  if (decision.ok) return { version: decision.version, basedOn: decision.basedOn, diff: decision.diff };
  if (decision.reason === "invalid")
    throw new AppError("BAD_REQUEST", "invalid policy document", { errors: decision.errors });
  const { latest, base, diff } = decision;
  throw new AppError(
    "CONFLICT",
    `version ${latest} was published since version ${base ?? "none"}: review its changes and publish again`,
    { latest, base, diff },
  );
}

async function mustGet(s: Store, scope: string, kind: PolicyKind, v: number) {
  const found = await getVersion(s, scope, kind, v);
  if (!found) throw new AppError("NOT_FOUND", `${kind} version ${v} of ${scope} does not exist`);
  return found;
}

/** Every cluster that sent telemetry, with the models its workers serve. */
async function servedScopes(s: Store) {
  const [names, workers] = await Promise.all([clusterNames(s), workerModels(s)]);
  return fleetScopes(names, workers);
}

/**
 * A version scoped to a model the cluster does not serve would reach no worker: refused (BAD_REQUEST) with the models
 * it does serve, before anything is stored.
 */
async function refuseUnservedModel(s: Store, scope: string): Promise<void> {
  const { cluster, model } = scopeParts(scope);
  if (model === null) return;
  const served = (await servedScopes(s)).find((c) => c.name === cluster)?.models ?? [];
  if (served.includes(model)) return;
  const list = served.length ? `it serves ${served.join(", ")}` : "no worker of it has named a model yet";
  throw new AppError("BAD_REQUEST", `cluster ${cluster} does not serve the model ${model}: ${list}`, {
    errors: [{ path: "cluster", message: `not a model of ${cluster}; ${list}` }],
    served,
  });
}

const targetsRouter = router({
  /** Every target with its config (secrets redacted). */
  list: viewerProcedure.query(async ({ ctx }) =>
    (await listTargets(ctx.store)).map((t) => ({ ...t, config: redactConfig(t.config) })),
  ),

  /** Create or replace a target; a file target's path is a name inside SWITCHYARD_TARGET_DIR (422 otherwise). */
  upsert: operatorProcedure.input(z.object({ target: targetInput })).mutation(async ({ ctx, input }) => {
    assertOutboundConfig(input.target.config);
    if (input.target.adapter === "planner-file")
      await unprocessableIfRefused(inspectConfinedFile(targetFolder(), input.target.config.path));
    await upsertTarget(ctx.store, input.target, authorOf(ctx), ctx.now());
    return { id: input.target.id };
  }),

  /** Remove a target and its rollout rows. */
  remove: operatorProcedure.input(z.object({ id: z.string().min(1).max(64) })).mutation(async ({ ctx, input }) => {
    if (!(await removeTarget(ctx.store, input.id, authorOf(ctx), ctx.now())))
      throw new AppError("NOT_FOUND", `no target ${input.id}`);
    return { id: input.id };
  }),
});

export const policiesRouter = router({
  /**
   * The clusters an operator can scope policies to: those that sent telemetry, have a version or have a target, with
   * "default" always first.
   */
  clusters: viewerProcedure.query(async ({ ctx }) => {
    const [served, scoped] = await Promise.all([servedScopes(ctx.store), policyClusters(ctx.store)]);
    const seen = served.flatMap((c) => [c.name, ...c.models.map((m) => policyScope(c.name, m))]);
    const rest = [...new Set([...seen, ...scoped])].filter((c) => c !== DEFAULT_CLUSTER).sort();
    return [DEFAULT_CLUSTER, ...rest];
  }),

  /** The latest version of every kind of a cluster (null before its first publish). */
  list: viewerProcedure
    .input(z.object({ cluster }).default({ cluster: DEFAULT_CLUSTER }))
    .query(async ({ ctx, input }) =>
      Promise.all(
        POLICY_KINDS.map(async (k) => ({ kind: k, latest: await latestVersion(ctx.store, input.cluster, k) })),
      ),
    ),

  /** The latest version of one kind of a cluster, or null. */
  latest: viewerProcedure
    .input(z.object({ cluster, kind }))
    .query(({ ctx, input }) => latestVersion(ctx.store, input.cluster, input.kind)),

  /** Versions of a cluster's kind, newest first, one page at a time. */
  history: viewerProcedure
    .input(
      z.object({
        cluster,
        kind,
        limit: z.number().int().min(1).max(MAX_PAGE).default(50),
        before: version.optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const s = ctx.store;
      const rows = await listVersions(s, input.cluster, input.kind, input.limit + 1, input.before);
      const page = rows.slice(0, input.limit);
      const guarded = await guardsOf(
        s,
        input.cluster,
        input.kind,
        page.map((v) => v.version),
      );
      const guards = new Map(guarded.map((g) => [g.version, g]));
      const items = page.map((v) => ({
        ...v,
        guard: guards.has(v.version) ? guardView(guards.get(v.version)!) : null,
      }));
      return { items, nextCursor: rows.length > input.limit ? items[items.length - 1]!.version : null };
    }),

  /**
   * Field-level changes from one version to another. `toCluster` compares with another cluster's version (copying a
   * policy from one cluster to another).
   */
  diff: viewerProcedure
    .input(z.object({ cluster, kind, from: version, to: version, toCluster: policyScopeName.optional() }))
    .query(async ({ ctx, input }) => {
      const s = ctx.store;
      const from = await mustGet(s, input.cluster, input.kind, input.from);
      const to = await mustGet(s, input.toCluster ?? input.cluster, input.kind, input.to);
      return diffDocuments(from.document, to.document);
    }),

  /**
   * Publish a document on top of baseVersion (null for the first); a stale base is a CONFLICT with the diff. A guard
   * rolls the version back by itself if it trips (server/control/guard.ts), so it needs an earlier version.
   */
  publish: operatorProcedure.input(publishInput).mutation(async ({ ctx, input }) => {
    if (input.guard && input.baseVersion === null)
      throw new AppError("BAD_REQUEST", "invalid guard", {
        errors: [
          { path: "guard", message: "a guard rolls back to the previous version: publish a first version without one" },
        ],
      });
    await refuseUnservedModel(ctx.store, input.cluster);
    const req = {
      cluster: input.cluster,
      kind: input.kind,
      document: input.document,
      baseVersion: input.baseVersion,
      author: authorOf(ctx),
      comment: input.comment,
      now: ctx.now(),
    };
    return outcome(await publishGuarded(ctx.store, req, input.guard));
  }),

  /** Publish an earlier version's content as a new version on top of baseVersion. */
  rollback: operatorProcedure
    .input(z.object({ cluster, kind, to: version, baseVersion: version, comment }))
    .mutation(async ({ ctx, input }) => {
      const decision = await rollbackVersion(ctx.store, { ...input, author: authorOf(ctx), now: ctx.now() });
      if (!decision)
        throw new AppError("NOT_FOUND", `${input.kind} version ${input.to} of ${input.cluster} does not exist`);
      return outcome(decision);
    }),

  /** Audit entries, newest first, one page at a time; of one cluster's policies and targets when `cluster` is given. */
  audit: viewerProcedure
    .input(
      z.object({
        cluster: policyScopeName.optional(),
        limit: z.number().int().min(1).max(MAX_PAGE).default(100),
        before: z.number().int().optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const rows = await listAudit(ctx.store, input.limit + 1, input.before, input.cluster);
      const items = rows.slice(0, input.limit);
      return { items, nextCursor: rows.length > input.limit ? items[items.length - 1]!.id : null };
    }),

  targets: targetsRouter,
  ...impactProcedures,

  /**
   * Per target and kind with a version of the target's cluster: the applied version, since when, and the push state;
   * of one cluster's targets when `cluster` is given.
   */
  rollout: viewerProcedure
    .input(z.object({ cluster: policyScopeName.optional() }).default({}))
    .query(async ({ ctx, input }) => {
      const s = ctx.store;
      const targets = (await listTargets(s)).filter((t) => input.cluster === undefined || t.cluster === input.cluster);
      return rolloutView(targets, await listStatuses(s), await latestVersionNumbers(s));
    }),
});
