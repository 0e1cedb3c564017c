import type { AlertRule } from "../../lib/alerts/rules";
import { quantileSorted } from "../../lib/quantile";
import { DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { splitWorkerKey } from "../../lib/worker-key";
import { preemptionRates } from "../../db/store/alerts";
import { latestVersionNumbers, listStatuses, listTargets } from "../../db/store/control";
import { guardRollbacksBetween } from "../../db/store/guards";
import { rolloutView } from "../control/rollout";
import { scopeFindings } from "../reads/findings";
import { oldestUnattributedOf } from "../../db/store/attribution-lag";
import { clusterNamesById } from "../../db/store/clusters";
import { fleetRequestGroups, fleetTtfts } from "../../db/store/fleet";
import { latestWorkerSamples } from "../../db/store/overview";
import { listSources, listSourceStatus } from "../../db/store/sources";
import type { Store } from "../../db/store/store";
import { sourceState } from "../sources/summary";
import type { Observation } from "./evaluate";

// The figures a rule is evaluated against, read from the store at `now` over the rule's window: one observation per
// series (a worker, a cluster and model, a source), filtered by the rule's scope, each with the page that shows it.
// Reads are shared between rules of one evaluation (Reads caches them by window).

/** Groups whose findings one evaluation reads at most (each is a few queries). */
const MAX_FINDING_GROUPS = 20;

/** The cluster of a policy scope (`cluster@model` names one model of it). */
const clusterOfScope = (scope: string) => scope.split("@")[0]!;

const range = (r: AlertRule) => `range=${r.window_seconds <= 900 ? "15m" : "1h"}`;
const q = encodeURIComponent;

/** One evaluation's reads, each made once per window. */
export class Reads {
  private cache = new Map<string, Promise<unknown>>();

  constructor(
    readonly s: Store,
    readonly now: number,
  ) {}

  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let p = this.cache.get(key) as Promise<T> | undefined;
    if (!p) this.cache.set(key, (p = read()));
    return p;
  }
}

type WorkerSeries = { key: string; cluster: string; id: string };

function workerOf(key: string): WorkerSeries {
  const { cluster, id } = splitWorkerKey(key);
  return { key, cluster, id };
}

/** Whether a series is inside the rule's scope. */
function inScope(r: AlertRule, x: { cluster?: string; model?: string; worker?: WorkerSeries }): boolean {
  const sc = r.scope;
  if (sc.cluster !== null && (x.cluster ?? DEFAULT_CLUSTER) !== sc.cluster) return false;
  if (sc.model !== null && x.model !== sc.model) return false;
  if (sc.worker !== null && x.worker && x.worker.id !== sc.worker && x.worker.key !== sc.worker) return false;
  return true;
}

/** The observations of `rule` (an empty list: nothing to judge, which resolves what was firing). */
export async function observe(rule: AlertRule, reads: Reads): Promise<Observation[]> {
  const { s, now } = reads;
  const from = now - rule.window_seconds * 1000;
  const win = `${from}`;
  switch (rule.metric) {
    case "preemptions_per_minute": {
      const rates = await reads.once(`preemptions:${win}`, () => preemptionRates(s, from, now));
      return [...rates]
        .map(([key, v]) => ({ w: workerOf(key), v }))
        .filter((x) => inScope(rule, { cluster: x.w.cluster, worker: x.w }))
        .map(({ w, v }) => workerObservation(rule, w, v));
    }
    case "kv_utilization": {
      const samples = await reads.once(`samples:${win}`, () => latestWorkerSamples(s, from, now));
      return samples
        .map((x) => ({ w: workerOf(x.workerId), v: x.kvTotalBlocks ? x.kvActiveBlocks / x.kvTotalBlocks : null }))
        .filter((x) => inScope(rule, { cluster: x.w.cluster, worker: x.w }))
        .map(({ w, v }) => workerObservation(rule, w, v));
    }
    case "hit_rate": {
      const [groups, names] = await Promise.all([
        reads.once(`groups:${win}`, () => fleetRequestGroups(s, from, now)),
        reads.once("clusters", () => clusterNamesById(s)),
      ]);
      return groups
        .map((g) => ({ ...g, cluster: names.get(g.clusterId) ?? DEFAULT_CLUSTER }))
        .filter((g) => inScope(rule, g))
        .map((g) =>
          groupObservation(rule, g.cluster, g.model, g.inputTokens > 0 ? g.cachedTokens / g.inputTokens : null),
        );
    }
    case "ttft_p95_ms": {
      const [ttfts, names] = await Promise.all([
        reads.once(`ttfts:${win}`, () => fleetTtfts(s, from, now)),
        reads.once("clusters", () => clusterNamesById(s)),
      ]);
      const groups = new Map<string, { cluster: string; model: string; v: number[] }>();
      for (const t of ttfts) {
        const cluster = names.get(t.clusterId) ?? DEFAULT_CLUSTER;
        const k = `${cluster}\u0000${t.model}`;
        let g = groups.get(k);
        if (!g) groups.set(k, (g = { cluster, model: t.model, v: [] }));
        g.v.push(t.ttft);
      }
      return [...groups.values()]
        .filter((g) => inScope(rule, g))
        .map((g) => groupObservation(rule, g.cluster, g.model, quantileSorted(g.v, 0.95)));
    }
    case "attribution_lag_minutes": {
      const oldest = await oldestUnattributedOf(s, "ts");
      return [
        {
          key: "attribution",
          labels: {},
          value: oldest === null ? 0 : Math.max(0, (now - oldest) / 60_000),
          link: "/",
        },
      ];
    }
    case "source_not_ok": {
      const [sources, statuses] = await Promise.all([listSources(s), listSourceStatus(s)]);
      const byId = new Map(statuses.map((x) => [x.id, x]));
      return sources.map((src) => ({
        key: `source=${src.id}`,
        labels: { source: src.name },
        value: null,
        present: src.enabled && sourceState(byId.get(src.id) ?? null, src.enabled) === "error",
        link: "/sources",
      }));
    }
    case "target_not_in_sync": {
      const [targets, statuses, latest] = await Promise.all([listTargets(s), listStatuses(s), latestVersionNumbers(s)]);
      const entries = rolloutView(targets, statuses, latest);
      const byTarget = new Map<string, { cluster: string; name: string; out: string[] }>();
      for (const e of entries) {
        if (!e.enabled) continue;
        const t = byTarget.get(e.targetId) ?? { cluster: e.cluster, name: e.targetName, out: [] };
        if (e.state !== "in_sync") t.out.push(`${e.kind} ${e.state}`);
        byTarget.set(e.targetId, t);
      }
      return [...byTarget]
        .filter(([, t]) => inScope(rule, { cluster: clusterOfScope(t.cluster) }))
        .map(([id, t]) => ({
          key: `target=${id}`,
          labels: { cluster: clusterOfScope(t.cluster), target: t.name },
          value: t.out.length,
          present: t.out.length > 0,
          link: `/policies?cluster=${q(t.cluster)}`,
        }));
    }
    case "guard_rollback": {
      const rollbacks = await guardRollbacksBetween(s, from, now);
      const byCluster = new Map<string, number>();
      for (const r of rollbacks)
        byCluster.set(clusterOfScope(r.cluster), (byCluster.get(clusterOfScope(r.cluster)) ?? 0) + 1);
      return [...byCluster]
        .filter(([cluster]) => inScope(rule, { cluster }))
        .map(([cluster, n]) => ({
          key: `cluster=${cluster}`,
          labels: { cluster },
          value: n,
          present: n > 0,
          link: `/policies/audit?cluster=${q(cluster)}`,
        }));
    }
    case "finding": {
      const [groups, names] = await Promise.all([
        reads.once(`groups:${win}`, () => fleetRequestGroups(s, from, now)),
        reads.once("clusters", () => clusterNamesById(s)),
      ]);
      const out: Observation[] = [];
      for (const g of groups.slice(0, MAX_FINDING_GROUPS)) {
        const cluster = names.get(g.clusterId) ?? DEFAULT_CLUSTER;
        if (!inScope(rule, { cluster, model: g.model })) continue;
        const f = await scopeFindings(s, from, now, { clusterId: g.clusterId, model: g.model });
        const link = `/?cluster=${q(cluster)}&model=${q(g.model)}&${range(rule)}`;
        for (const [finding, present] of [
          ["unstable_prefix", f.unstablePrefix !== null],
          ["kv_held_through_tool_waits", f.toolWait !== null && (f.toolWait.survivedShare ?? 0) > 0],
        ] as const)
          out.push({
            key: `finding=${finding},cluster=${cluster},model=${g.model}`,
            labels: { cluster, model: g.model, finding },
            value: null,
            present,
            link,
          });
      }
      return out;
    }
  }
}

function workerObservation(r: AlertRule, w: WorkerSeries, value: number | null): Observation {
  return {
    key: `worker=${w.key}`,
    labels: { cluster: w.cluster, worker: w.id },
    value,
    link: `/workers/${q(w.key)}?${range(r)}`,
  };
}

function groupObservation(r: AlertRule, cluster: string, model: string, value: number | null): Observation {
  return {
    key: `cluster=${cluster},model=${model}`,
    labels: { cluster, model },
    value,
    link: `/?cluster=${q(cluster)}&model=${q(model)}&${range(r)}`,
  };
}
