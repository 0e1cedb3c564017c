import { DEFAULT_CLUSTER } from "./cluster-name";

// A worker's identity is its cluster and its id: `w1` of staging is not `w1` of production. Every table keyed by
// worker stores one text key for the pair, built once at the ingest seam (server/ingest/events.ts parseEvent):
//
//   - a worker of the default cluster keeps its id as its key (`w1`), so what was stored before clusters existed
//     keeps its meaning;
//   - a worker of any other cluster is `cluster/id` (`staging/w1`);
//   - a default-cluster id that itself has a '/' is `default/id`, so no two pairs share a key.
//
// Cluster names never contain '/' (lib/cluster-name.ts), so a key splits at its first '/'.

/** The stored key of worker `id` of `cluster` (absent: the default cluster). */
export function workerKey(cluster: string | undefined, id: string): string {
  if ((cluster === undefined || cluster === DEFAULT_CLUSTER) && !id.includes("/")) return id;
  return `${cluster ?? DEFAULT_CLUSTER}/${id}`;
}

/** The cluster and the id a stored key stands for. */
export function splitWorkerKey(key: string): { cluster: string; id: string } {
  const at = key.indexOf("/");
  return at < 0 ? { cluster: DEFAULT_CLUSTER, id: key } : { cluster: key.slice(0, at), id: key.slice(at + 1) };
}
