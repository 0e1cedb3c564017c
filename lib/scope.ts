import { CLUSTER_NAME, CLUSTER_NAME_RULE } from "./cluster-name";
import { splitWorkerKey } from "./worker-key";

// What part of the fleet a page shows: one cluster, one model, both, or everything ("all clusters"), kept in the URL
// as `?cluster=` and `?model=` beside the time range, so a link reproduces the view.

export type Scope = { cluster?: string; model?: string };

/** The longest model name events carry. */
export const MAX_MODEL = 256;

/** The scope a URL asks for; a malformed value is left out and named in `problem`. */
export function parseScope(params: URLSearchParams): { scope: Scope; problem: string | null } {
  const scope: Scope = {};
  const problems: string[] = [];
  const cluster = params.get("cluster");
  if (cluster !== null && cluster !== "") {
    if (CLUSTER_NAME.test(cluster)) scope.cluster = cluster;
    else
      problems.push(`cluster ${JSON.stringify(cluster.slice(0, 80))} is not a cluster name (it ${CLUSTER_NAME_RULE})`);
  }
  const model = params.get("model");
  if (model !== null && model !== "") {
    if (model.length <= MAX_MODEL) scope.model = model;
    else problems.push(`model is longer than ${MAX_MODEL} characters`);
  }
  return { scope, problem: problems.length ? problems.join("; ") : null };
}

/** The URL parameters of a scope (empty for everything). */
export function scopeQuery(scope: Scope): string {
  const q = new URLSearchParams();
  if (scope.cluster) q.set("cluster", scope.cluster);
  if (scope.model) q.set("model", scope.model);
  return q.toString();
}

/** Whether worker `key` (lib/worker-key.ts) serving `model` is in the scope. */
export function inScope(key: string, model: string | null, scope: Scope): boolean {
  if (scope.cluster !== undefined && splitWorkerKey(key).cluster !== scope.cluster) return false;
  return scope.model === undefined || model === scope.model;
}

/** Whether the scope is everything. */
export const isWholeFleet = (scope: Scope) => scope.cluster === undefined && scope.model === undefined;

/** How a scope reads in a sentence ("cluster staging, model m"; "all clusters"). */
export function describeScope(scope: Scope): string {
  const parts = [scope.cluster && `cluster ${scope.cluster}`, scope.model && `model ${scope.model}`].filter(Boolean);
  return parts.length ? parts.join(", ") : "all clusters";
}
