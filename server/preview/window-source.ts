import type { Db } from "../../db/sqlite/client";
import { DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { chainStartRuns, storedRunsAfter, windowRequests } from "../../db/sqlite/previews";
import type { FirstRunRow, StoredRunRow, WindowRequestRow, WindowWorkerRow } from "../../db/rows/previews";
import { getVersion } from "../../db/store/control";
import { chainStartRunsPg, storedRunsAfterPg, windowRequestsPg } from "../../db/pg/preview-window";
import { trajectoriesBetween, windowWorkers } from "../../db/store/previews";
import { sqliteStore, type Store } from "../../db/store/store";
import { clusterId } from "../../db/ingest/clusters";

// Where the replay reads its recorded window from: a SQLite file (its synchronous reader, which decodes the compact
// chains and KV lists) or PostgreSQL through the store (chains and lists stored whole). Same rows from either. A
// source reads one cluster's traffic, workers and policy versions: a preview replays the cluster it is asked for.

export type WindowSource = {
  /** Requests that arrived in [from, to), oldest first, at most `limit`, each with its full chain. */
  requests(from: number, to: number, limit: number): Promise<WindowRequestRow[]>;
  /** Device stores without a parent in [from, to), oldest first, at most `limit`. */
  chainStarts(from: number, to: number, limit: number): Promise<FirstRunRow[]>;
  /** One worker's device stores in [from, to) continuing `parent`, oldest first, at most `limit`. */
  runsAfter(workerId: string, parent: Buffer, from: number, to: number, limit: number): Promise<StoredRunRow[]>;
  workers(from: number, to: number): Promise<WindowWorkerRow[]>;
  trajectories(from: number, to: number): Promise<string[]>;
  /** A stored policy version's document, or null. */
  versionDocument(kind: string, version: number): Promise<{ document: unknown } | null>;
};

/** What the window reads alike on both engines, through the store. */
function storeReads(s: Store, cluster: string): Pick<WindowSource, "workers" | "trajectories" | "versionDocument"> {
  const id = clusterId(cluster);
  return {
    workers: (from, to) => windowWorkers(s, from, to, cluster),
    trajectories: (from, to) => trajectoriesBetween(s, from, to, id),
    versionDocument: async (kind, version) => {
      // Requests name the version of their cluster they ran under.
      const v = await getVersion(s, cluster, kind, version);
      return v ? { document: v.document } : null;
    },
  };
}

/** The window of a SQLite file: requests and KV runs read synchronously (their compact forms decoded here). */
export function sqliteWindow(db: Db, cluster: string = DEFAULT_CLUSTER): WindowSource {
  const id = clusterId(cluster);
  return {
    requests: async (from, to, limit) => windowRequests(db, from, to, limit, id),
    chainStarts: async (from, to, limit) => chainStartRuns(db, from, to, limit, id),
    // Worker keys name their cluster: a worker's runs are its cluster's.
    runsAfter: async (w, parent, from, to, limit) => storedRunsAfter(db, w, parent, from, to, limit),
    ...storeReads(sqliteStore(db), cluster),
  };
}

/** The window of a PostgreSQL store. */
export function pgWindow(s: Store, cluster: string = DEFAULT_CLUSTER): WindowSource {
  const id = clusterId(cluster);
  return {
    requests: (from, to, limit) => windowRequestsPg(s, from, to, limit, id),
    chainStarts: (from, to, limit) => chainStartRunsPg(s, from, to, limit, id),
    runsAfter: (w, parent, from, to, limit) => storedRunsAfterPg(s, w, parent, from, to, limit),
    ...storeReads(s, cluster),
  };
}

/** The window source of one cluster for a store: PostgreSQL's own, or the SQLite file's connection. */
export function windowSourceOf(s: Store, cluster: string = DEFAULT_CLUSTER): WindowSource {
  return s.sqlite ? sqliteWindow(s.sqlite, cluster) : pgWindow(s, cluster);
}
