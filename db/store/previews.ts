import { and, count, desc, eq, gte, lt, max, sum } from "drizzle-orm";
import type { Store } from "./store";

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

/** Requests that arrived in [from, to) (for the window limit and the empty-window answer). */
export async function countWindowRequests(s: Store, from: number, to: number): Promise<number> {
  const r = s.t.requestReads;
  const [row] = await s.db
    .select({ n: count() })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to)));
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
): Promise<{ requests: number; inputTokens: number; blockSize: number | null }> {
  const r = s.t.requestReads;
  const [row] = await s.db
    .select({ n: count(), tokens: sum(r.inputTokens), blockSize: max(r.blockSize) })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to)));
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
  const p = s.t.previewResults;
  const [kept] = await s.db.insert(p).values(row).returning({ id: p.id });
  return kept!.id;
}
