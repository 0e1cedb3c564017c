import { and, eq, inArray, type SQL } from "drizzle-orm";
import { clusterId, modelId } from "../ingest/clusters";
import { scopeParts } from "../../lib/policy-scope";
import type { Store } from "./store";

// A page's scope (lib/scope.ts) as the store's reads take it: requests by their cluster id and model, worker rollups by
// the keys of the scope's workers (lib/worker-key.ts).

/** The requests of one cluster and/or one model (absent fields: any). */
export type RequestScope = { clusterId?: number; model?: string };

/**
 * A scope as a read takes it: the requests' filter and the keys of the scope's workers (for rollups keyed by worker).
 * Both absent: the whole fleet.
 */
export type ScopeFilter = { rs?: RequestScope; workers?: readonly string[] };

/** A scope's request filter, or undefined for the whole fleet. */
export function requestScopeOf(scope: { cluster?: string; model?: string }): RequestScope | undefined {
  if (scope.cluster === undefined && scope.model === undefined) return undefined;
  return {
    ...(scope.cluster !== undefined ? { clusterId: clusterId(scope.cluster) } : {}),
    ...(scope.model !== undefined ? { model: scope.model } : {}),
  };
}

/** A policy scope's requests (lib/policy-scope.ts): its cluster's, and its model's when it names one. */
export function policyRequestScope(scope: string): RequestScope {
  const { cluster, model } = scopeParts(scope);
  return model === null ? { clusterId: clusterId(cluster) } : { clusterId: clusterId(cluster), model };
}

/** The conditions on raw request rows (undefined: none). */
export function requestRowsIn(s: Store, rs: RequestScope | undefined): SQL | undefined {
  if (!rs) return undefined;
  const r = s.t.requestReads;
  return and(
    rs.clusterId === undefined ? undefined : eq(r.clusterId, rs.clusterId),
    rs.model === undefined ? undefined : eq(r.model, rs.model),
  );
}

/** The conditions on a rollup by cluster and model (requests_scope_1m, request_ttft_scope_1m). */
export function scopeRollupIn(
  t: { clusterId: Parameters<typeof eq>[0]; modelId: Parameters<typeof eq>[0] },
  rs: RequestScope,
): SQL | undefined {
  return and(
    rs.clusterId === undefined ? undefined : eq(t.clusterId, rs.clusterId),
    rs.model === undefined ? undefined : eq(t.modelId, modelId(rs.model)),
  );
}

/** Rows of the given worker keys only (undefined: every worker). The caller answers an empty list without reading. */
export function workersIn(column: Parameters<typeof inArray>[0], workers: readonly string[] | undefined) {
  return workers === undefined ? undefined : inArray(column, [...workers]);
}
