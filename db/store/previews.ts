import { and, asc, count, desc, eq, gte, isNull, lt, max, or, sql, sum } from "drizzle-orm";
import type { WindowWorkerRow } from "../rows/previews";
import { DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { splitWorkerKey } from "../../lib/worker-key";
import type { Store } from "./store";
import { sessionTables } from "./session-tables";

// The preview's kept results and its window check on either engine. Rows in, rows out: the replay and its decisions
// live in server/preview.

export type StoredPreview = {
  id: number;
  kind: string;
  contentHash: string;
  windowFrom: number;
  windowTo: number;
  clusterKey: string;
  computedAt: number;
  hitRate: number | null;
  ttftP50Ms: number | null;
  ttftP95Ms: number | null;
  result: string;
};

/** Requests of cluster `clusterId` that arrived in [from, to) (for the window limit and the empty-window answer). */
export async function countWindowRequests(s: Store, from: number, to: number, clusterId = 0): Promise<number> {
  const r = s.t.requestReads;
  const [row] = await s.db
    .select({ n: count() })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), eq(r.clusterId, clusterId)));
  return row?.n ?? 0;
}

/**
 * Requests that arrived in [from, to), their prompt tokens and the largest block size their chains were recorded at
 * (null: none recorded one): what a preview's memory estimate and override bounds read.
 */
export async function windowRequestStats(
  s: Store,
  from: number,
  to: number,
  clusterId = 0,
): Promise<{ requests: number; inputTokens: number; blockSize: number | null }> {
  const r = s.t.requestReads;
  const [row] = await s.db
    .select({ n: count(), tokens: sum(r.inputTokens), blockSize: max(r.blockSize) })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), eq(r.clusterId, clusterId)));
  const blockSize = row?.blockSize ?? null;
  return {
    requests: row?.n ?? 0,
    inputTokens: Number(row?.tokens ?? 0),
    blockSize: blockSize === null ? null : Number(blockSize),
  };
}

/** The stored result for exactly this content, window and cluster, newest first; null: none. */
export async function findPreview(
  s: Store,
  kind: string,
  contentHash: string,
  from: number,
  to: number,
  clusterKey: string,
): Promise<StoredPreview | null> {
  const p = s.t.previewResults;
  const [row] = await s.db
    .select()
    .from(p)
    .where(
      and(
        eq(p.kind, kind),
        eq(p.contentHash, contentHash),
        eq(p.windowFrom, from),
        eq(p.windowTo, to),
        eq(p.clusterKey, clusterKey),
      ),
    )
    .orderBy(desc(p.computedAt), desc(p.id))
    .limit(1);
  return row ?? null;
}

/** The newest stored result for a policy content, any window; null: none. */
export async function latestPreview(s: Store, kind: string, contentHash: string): Promise<StoredPreview | null> {
  const p = s.t.previewResults;
  const [row] = await s.db
    .select()
    .from(p)
    .where(and(eq(p.kind, kind), eq(p.contentHash, contentHash)))
    .orderBy(desc(p.computedAt), desc(p.id))
    .limit(1);
  return row ?? null;
}

/** Keep one result; its id. */
export async function insertPreview(s: Store, row: Omit<StoredPreview, "id">): Promise<number> {
  return s.tx(async (t) => {
    const p = t.t.previewResults;
    const [kept] = await t.db.insert(p).values(row).returning({ id: p.id });
    return kept!.id;
  });
}

// The recorded window's workers and trajectories, read alike on both engines (the replay's other reads are per
// engine: db/sqlite/previews.ts decodes compact lists, db/pg/preview-window.ts reads whole ones).

/** Trajectory (else session) ids of cluster `clusterId` with a request in [from, to), in no particular order. */
export async function trajectoriesBetween(s: Store, from: number, to: number, clusterId = 0): Promise<string[]> {
  const r = sessionTables(s).requests;
  const id = sql<string>`coalesce(${r.trajectoryId}, ${r.sessionId})`;
  const rows = await s.db
    .selectDistinct({ id })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), eq(r.clusterId, clusterId), sql`${id} IS NOT NULL`));
  return rows.map((x) => x.id);
}

/**
 * Workers of `cluster` up at some point in [from, to): seen by worker.up or a stats sample in it, or up before it and
 * not down; the largest KV size sampled in the window, else the registered one. By worker key, byte by byte.
 */
export async function windowWorkers(
  s: Store,
  from: number,
  to: number,
  cluster: string = DEFAULT_CLUSTER,
): Promise<WindowWorkerRow[]> {
  const { workers: w, workerStats: st } = s.t;
  const sampled = sql`(SELECT max(${st.kvTotalBlocks}) FROM ${st} WHERE ${st.workerId} = ${w.workerId} AND ${st.ts} >= ${from} AND ${st.ts} < ${to})`;
  const id = s.engine === "pg" ? sql`${w.workerId} COLLATE "C"` : sql`${w.workerId}`;
  const rows = await s.db
    .select({
      workerId: w.workerId,
      role: w.role,
      kvTotalBlocks: sql<number | null>`coalesce(${sampled}, ${w.kvTotalBlocks})`.mapWith((v: unknown) =>
        v === null ? null : Number(v),
      ),
      blockSize: w.blockSize,
      model: w.model,
    })
    .from(w)
    .where(
      and(lt(w.firstSeen, to), or(isNull(w.downAt), gte(w.downAt, from), gte(w.lastSeen, from)), gte(w.lastSeen, from)),
    )
    .orderBy(asc(id));
  return rows.filter((w) => splitWorkerKey(w.workerId).cluster === cluster);
}
