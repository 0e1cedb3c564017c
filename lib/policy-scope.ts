import { z } from "zod";
import { CLUSTER_NAME, CLUSTER_NAME_RULE } from "./cluster-name";

// What a policy line belongs to: a cluster, or one model of a cluster. It is written as one string, the cluster's
// name alone or `cluster@model` ("staging", "production@openai/gpt-oss-120b"); a cluster name never contains '@', so
// the first '@' splits it. Versions, drafts, conflicts, guards, audit and rollout are per scope, and a target
// belongs to one scope and receives exactly that scope's versions (docs/policies.md).

/** A model's name in a scope: 1 to 256 visible characters (no spaces), as telemetry spells it. */
export const MODEL_NAME = /^[\x21-\x7e]{1,256}$/;
const MODEL_NAME_RULE = "must be 1 to 256 visible ASCII characters without spaces";

export type PolicyScopeParts = { cluster: string; model: string | null };

/** The scope string of a cluster, or of one of its models. */
export function policyScope(cluster: string, model?: string | null): string {
  return model ? `${cluster}@${model}` : cluster;
}

/** A scope string's cluster and model (null: the whole cluster). Assumes a checked scope. */
export function scopeParts(scope: string): PolicyScopeParts {
  const at = scope.indexOf("@");
  return at < 0 ? { cluster: scope, model: null } : { cluster: scope.slice(0, at), model: scope.slice(at + 1) };
}

/** Why a scope string is not one (null: it is). */
export function scopeProblem(scope: string): string | null {
  const { cluster, model } = scopeParts(scope);
  if (!CLUSTER_NAME.test(cluster)) return `the cluster ${CLUSTER_NAME_RULE}`;
  if (model !== null && !MODEL_NAME.test(model)) return `the model after '@' ${MODEL_NAME_RULE}`;
  return null;
}

/** A policy scope, checked: `cluster` or `cluster@model`. */
export const policyScopeName = z.string().superRefine((v, ctx) => {
  const problem = scopeProblem(v);
  if (problem) ctx.addIssue({ code: "custom", message: `not a cluster or cluster@model: ${problem}` });
});

/** The scope as people read it: "production · openai/gpt-oss-120b". */
export function scopeLabel(scope: string): string {
  const { cluster, model } = scopeParts(scope);
  return model === null ? cluster : `${cluster} · ${model}`;
}
