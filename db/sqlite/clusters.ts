import type Database from "better-sqlite3";
import { clusterId, clusterProblem } from "../ingest/clusters";
import { MAX_CLUSTERS } from "../../lib/memory-bounds";
import type { Db } from "./client";

// The clusters table on the ingest path: a new cluster name is written inside the batch's transaction, once; each
// connection remembers the names it wrote or found (at most MAX_CLUSTERS), and forgets them when a batch rolls back.

type State = {
  known: Map<number, string>;
  get: Database.Statement;
  count: Database.Statement;
  put: Database.Statement;
};
const states = new WeakMap<Database.Database, State>();

function state(db: Db): State {
  let s = states.get(db.$client);
  if (!s) {
    const c = db.$client;
    s = {
      known: new Map(),
      get: c.prepare("SELECT name FROM clusters WHERE id = ?").pluck(),
      count: c.prepare("SELECT count(*) FROM clusters").pluck(),
      put: c.prepare("INSERT INTO clusters (id, name, first_seen) VALUES (?, ?, ?)"),
    };
    states.set(db.$client, s);
  }
  return s;
}

/**
 * Inside a write transaction: null when events of cluster `name` can be stored (it is written on first sight, at
 * `ts`), else why not. The default cluster needs no row.
 */
export function registerCluster(db: Db, name: string | undefined, ts: number): string | null {
  const id = clusterId(name);
  if (id === 0) return null;
  const s = state(db);
  if (s.known.get(id) === name) return null;
  const stored = (s.get.get(id) as string | undefined) ?? null;
  const problem = clusterProblem(name!, stored, stored === null ? (s.count.get() as number) : 0, MAX_CLUSTERS);
  if (problem) return problem;
  if (stored === null) s.put.run(id, name, ts);
  if (s.known.size < MAX_CLUSTERS) s.known.set(id, name!);
  return null;
}

/** Forget the names remembered (a rolled-back batch may have written some). */
export function forgetClusters(db: Db): void {
  states.get(db.$client)?.known.clear();
}
