import { splitWorkerKey } from "../../lib/worker-key";
import type { FleetRequestGroup, FleetSample, FleetTtft } from "../../db/rows/fleet";
import { sortedP50P95 } from "./latency";

// The overview's fleet table: one row per cluster and model, each figure that model's own. A hit rate or a TTFT of
// one model says nothing of another's, so no row sums or averages across models; the only fleet-wide figure is the
// count of clusters and workers, which adds up.

/** A model's row of one cluster. Figures are null when the window holds nothing to compute them from. */
export type FleetRow = {
  cluster: string;
  /** The model the requests named, or the workers reported; null for workers that reported none. */
  model: string | null;
  requests: number;
  requestsPerSecond: number;
  ttftP50Ms: number | null;
  ttftP95Ms: number | null;
  /** Cached input tokens over input tokens of the requests (token-weighted). */
  hitRate: number | null;
  /** KV blocks in use over KV blocks, of the latest sample of each of the cluster's workers serving the model. */
  kvUtilization: number | null;
  workers: number;
};

export type FleetInput = {
  groups: readonly FleetRequestGroup[];
  /** Ordered by cluster id, model, then value (as db/store/fleet.ts reads them). */
  ttfts: readonly FleetTtft[];
  /** Oldest first: the last sample of a worker wins. */
  samples: readonly FleetSample[];
  /** Cluster names by id; an id without a name shows as `#id`. */
  names: ReadonlyMap<number, string>;
  /** The window's length (ms), for requests per second. */
  windowMs: number;
};

const keyOf = (clusterId: number, model: string | null) => `${clusterId}\u0000${model ?? ""}`;

/** One row per (cluster, model) with requests or workers in the window, by cluster name then model. */
export function fleetRows(input: FleetInput): FleetRow[] {
  const nameOf = (id: number) => input.names.get(id) ?? `#${id}`;
  const rows = new Map<string, FleetRow>();
  const rowOf = (clusterId: number, model: string | null): FleetRow => {
    const k = keyOf(clusterId, model);
    let r = rows.get(k);
    if (!r) {
      r = {
        cluster: nameOf(clusterId),
        model,
        requests: 0,
        requestsPerSecond: 0,
        ttftP50Ms: null,
        ttftP95Ms: null,
        hitRate: null,
        kvUtilization: null,
        workers: 0,
      };
      rows.set(k, r);
    }
    return r;
  };
  const seconds = Math.max(input.windowMs, 1) / 1000;
  for (const g of input.groups) {
    const r = rowOf(g.clusterId, g.model);
    r.requests += g.requests;
    r.requestsPerSecond = r.requests / seconds;
    r.hitRate = g.inputTokens > 0 ? g.cachedTokens / g.inputTokens : null;
  }
  let run: number[] = [];
  let runKey: string | null = null;
  const flush = () => {
    if (runKey === null || run.length === 0) return;
    const r = rows.get(runKey);
    if (r) {
      const { p50, p95 } = sortedP50P95(run);
      r.ttftP50Ms = p50;
      r.ttftP95Ms = p95;
    }
  };
  for (const t of input.ttfts) {
    const k = keyOf(t.clusterId, t.model);
    if (k !== runKey) {
      flush();
      run = [];
      runKey = k;
    }
    run.push(t.ttft);
  }
  flush();
  const latest = new Map<string, FleetSample>();
  for (const s of input.samples) latest.set(`${s.clusterId}\u0000${s.workerId}`, s);
  const kv = new Map<string, { active: number; total: number }>();
  for (const s of latest.values()) {
    const r = rowOf(s.clusterId, s.model);
    r.workers++;
    const k = keyOf(s.clusterId, s.model);
    const sum = kv.get(k) ?? { active: 0, total: 0 };
    sum.active += s.kvActiveBlocks;
    sum.total += s.kvTotalBlocks;
    kv.set(k, sum);
  }
  for (const [k, sum] of kv) rows.get(k)!.kvUtilization = sum.total > 0 ? sum.active / sum.total : null;
  return [...rows.values()].sort(
    (a, b) => a.cluster.localeCompare(b.cluster) || (a.model ?? "\uffff").localeCompare(b.model ?? "\uffff"),
  );
}

/** One cluster of the scope menus and the models its workers serve (sorted). */
export type ClusterScope = { name: string; models: string[] };

/**
 * The clusters a page can be scoped to (every stored cluster, and any a worker's key names) with the models their
 * workers serve, by name.
 */
export function fleetScopes(names: readonly string[], workers: readonly { workerId: string; model: string | null }[]) {
  const models = new Map<string, Set<string>>(names.map((n) => [n, new Set()]));
  for (const w of workers) {
    const cluster = splitWorkerKey(w.workerId).cluster;
    const set = models.get(cluster) ?? new Set<string>();
    if (w.model !== null) set.add(w.model);
    models.set(cluster, set);
  }
  return [...models]
    .map(([name, set]): ClusterScope => ({ name, models: [...set].sort() }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
