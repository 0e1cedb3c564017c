// Clusters as event rows store them: a compact id per name (cluster_id on every event table, db/*/schema), the names
// in the clusters table. The id is a hash of the name, so a row is built without reading anything (before an ingest
// thread's write turn, on either engine); the clusters table, written once per new name, says which name an id is
// and refuses a second name hashing to the same id.

import { DEFAULT_CLUSTER } from "../../lib/cluster-name";

export { DEFAULT_CLUSTER };

/** A cluster name's id: 0 for DEFAULT_CLUSTER (and no name), else a positive 31-bit hash of the name. */
export function clusterId(name: string | undefined): number {
  if (name === undefined || name === DEFAULT_CLUSTER) return 0;
  return hash31(name);
}

/**
 * A model name's id in the rollups by cluster and model (requests_scope_1m): a positive 31-bit hash of the name, with
 * no registry (requests and workers name their models). Two names of one id would share those rows: at the fleet's
 * size, about one chance in a million.
 */
export function modelId(name: string): number {
  return hash31(name);
}

function hash31(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 1 || 1;
}

/** Why an event's cluster cannot be stored, or null: its id is another name's, or the fleet is full. */
export function clusterProblem(name: string, stored: string | null, count: number, max: number): string | null {
  if (stored === name) return null;
  if (stored !== null)
    return `cluster ${JSON.stringify(name)} cannot be told apart from the stored cluster ${JSON.stringify(stored)} (their ids collide); rename one`;
  if (count >= max)
    return `cluster ${JSON.stringify(name)} is new and there are already ${max.toLocaleString("en-US")} clusters (the most a store keeps)`;
  return null;
}
