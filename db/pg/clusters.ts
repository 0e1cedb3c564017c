import type postgres from "postgres";
import { clusterId, clusterProblem } from "../ingest/clusters";
import { MAX_CLUSTERS } from "../../lib/memory-bounds";
import type { IngestRow } from "../rows/ingest";

// The clusters table on PostgreSQL's ingest path (SQLite's is db/sqlite/clusters.ts): a batch's new cluster names are
// written first in its transaction, before any other row (so the wait on another batch writing the same name holds
// no other lock); the names written or found are remembered per client (at most MAX_CLUSTERS) once committed.

const knownBySql = new WeakMap<postgres.Sql, Map<number, string>>();

/**
 * Register the clusters `events` name that `sql` has not seen; returns why each cluster that cannot be stored cannot
 * (by name; empty when all can). `commit` remembers the names once the transaction has committed.
 */
export async function registerClustersPg(
  sql: postgres.Sql,
  tx: postgres.Sql,
  events: readonly IngestRow[],
): Promise<{ refused: Map<string, string>; commit: () => void }> {
  let known = knownBySql.get(sql);
  if (!known) knownBySql.set(sql, (known = new Map()));
  const wanted = new Map<number, string>();
  const firstTs = new Map<number, number>();
  const refused = new Map<string, string>();
  for (const e of events) {
    const id = clusterId(e.cluster);
    if (id === 0 || known.get(id) === e.cluster) continue;
    const other = wanted.get(id);
    if (other === undefined) (wanted.set(id, e.cluster!), firstTs.set(id, e.ts));
    else if (other !== e.cluster) refused.set(e.cluster!, clusterProblem(e.cluster!, other, 0, MAX_CLUSTERS)!);
  }
  if (wanted.size === 0) return { refused, commit: () => {} };
  const ids = [...wanted.keys()];
  const stored = new Map(
    (await tx<{ id: number; name: string }[]>`SELECT id, name FROM clusters WHERE id = ANY(${ids}::int4[])`).map(
      (r) => [r.id, r.name] as const,
    ),
  );
  let count =
    stored.size < wanted.size ? Number((await tx<{ n: string }[]>`SELECT count(*) AS n FROM clusters`)[0]!.n) : 0;
  const fresh: { id: number; name: string }[] = [];
  for (const [id, name] of wanted) {
    const problem = clusterProblem(name, stored.get(id) ?? null, count, MAX_CLUSTERS);
    if (problem) refused.set(name, problem);
    else if (!stored.has(id)) (fresh.push({ id, name }), count++);
  }
  if (fresh.length > 0) {
    await tx`INSERT INTO clusters (id, name, first_seen)
      SELECT * FROM unnest(${fresh.map((f) => f.id)}::int4[], ${fresh.map((f) => f.name)}::text[], ${fresh.map((f) => firstTs.get(f.id)!)}::int8[])
      ON CONFLICT DO NOTHING`;
    // Another batch may have written an id first, with another name: read back what holds.
    const now = await tx<
      { id: number; name: string }[]
    >`SELECT id, name FROM clusters WHERE id = ANY(${fresh.map((f) => f.id)}::int4[])`;
    for (const r of now)
      if (wanted.get(r.id) !== r.name)
        refused.set(wanted.get(r.id)!, clusterProblem(wanted.get(r.id)!, r.name, 0, MAX_CLUSTERS)!);
  }
  return {
    refused,
    commit: () => {
      for (const [id, name] of wanted) if (!refused.has(name) && known.size < MAX_CLUSTERS) known.set(id, name);
    },
  };
}
