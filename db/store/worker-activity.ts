import { and, asc, desc, eq, gte, inArray, lt, ne, sql } from "drizzle-orm";
import { candidatesJson } from "../codecs/candidates";
import type { DecisionRow } from "../rows/workers";
import { bucketOf, num, position, rawRows } from "./sql";
import type { Store } from "./store";

// A worker's share of the cluster's activity in a range: the routing decisions it won or lost, the requests it
// served, and what its KV cache stored and removed (the worker page's tables beside its charts).

const countAll = () => num(sql`count(*)`);

/** Requests in [from, to) that a worker served. */
export async function requestsServed(s: Store, workerId: string, from: number, to: number): Promise<number> {
  const q = s.t.requestReads;
  const [r] = await s.db
    .select({ n: countAll() })
    .from(q)
    .where(and(eq(q.workerId, workerId), gte(q.arrivedAt, from), lt(q.arrivedAt, to)));
  return r?.n ?? 0;
}

export type LostScan = { scanned: number; lost: number; truncated: boolean; recent: DecisionRow[] };

/**
 * Among the latest `scanLimit` decisions in [from, to): how many the worker lost (a candidate, not chosen),
 * and the most recent `recentLimit` of those rows. `truncated` when the range held more decisions than scanned.
 */
export async function decisionsLost(
  s: Store,
  workerId: string,
  from: number,
  to: number,
  scanLimit = 10_000,
  recentLimit = 20,
): Promise<LostScan> {
  const d = s.t.routeDecisions;
  const [a, b, w] = [sql.placeholder("a"), sql.placeholder("b"), sql.placeholder("w")];
  const inRange = and(gte(d.ts, a), lt(d.ts, b));
  const probe = () => {
    const inner = s.db
      .select({ one: sql`1`.as("one") })
      .from(d)
      .where(inRange)
      .limit(sql.placeholder("scan1"))
      .as("probe");
    return s.db.select({ n: countAll() }).from(inner);
  };
  const lostRows = () => {
    const latest = s.db
      .select({ ts: d.ts, requestId: d.requestId, chosenWorkerId: d.chosenWorkerId, candidates: d.candidates })
      .from(d)
      .where(inRange)
      .orderBy(desc(d.ts))
      .limit(sql.placeholder("scan"))
      .as("latest");
    // Candidates are JSON (older rows) or the compact ";id,overlap,…" text (db/codecs/candidates.ts).
    const json = position(s, sql`${latest.candidates}`, sql.placeholder("json"));
    const compact = position(s, sql`';' || ${latest.candidates}`, sql.placeholder("compact"));
    return s.db
      .select({
        ts: latest.ts,
        requestId: latest.requestId,
        chosenWorkerId: latest.chosenWorkerId,
        candidates: latest.candidates,
        lost: num(sql`count(*) OVER ()`),
      })
      .from(latest)
      .where(
        and(
          ne(latest.chosenWorkerId, w),
          sql`CASE WHEN substr(${latest.candidates}, 1, 1) = '[' THEN ${json} ELSE ${compact} END > 0`,
        ),
      )
      .orderBy(desc(latest.ts))
      .limit(sql.placeholder("recent"));
  };
  // Prepared once per store and read as value rows (rawRows): built and mapped by drizzle on every call, the worker
  // page's slowest read took twice the time of the same SQL.
  // The probe and the scan are independent: run side by side (PostgreSQL: two pooled connections).
  const [[counted], rows] = await Promise.all([
    rawRows(s, "decisionsLost.probe", probe, { a: from, b: to, scan1: scanLimit + 1 }),
    rawRows(s, "decisionsLost.rows", lostRows, {
      a: from,
      b: to,
      w: workerId,
      scan: scanLimit,
      json: `"worker_id":${JSON.stringify(workerId)}`,
      compact: `;${workerId},`,
      recent: recentLimit,
    }),
  ]);
  const scanned = Number(counted?.[0] ?? 0);
  return {
    scanned: Math.min(scanned, scanLimit),
    lost: Number(rows[0]?.[4] ?? 0),
    truncated: scanned > scanLimit,
    recent: rows.map((r) => ({
      ts: Number(r[0]),
      requestId: r[1] as string,
      chosenWorkerId: r[2] as string,
      candidates: candidatesJson(r[3] as string),
    })),
  };
}

/** Blocks and events removed from a worker's cache in [from, to) per reason (kv.cleared counts as "cleared"). */
export async function removalsByReason(
  s: Store,
  workerId: string,
  from: number,
  to: number,
): Promise<{ reason: string; blocks: number; events: number }[]> {
  const k = s.t.kvEventReads;
  const reason = sql<string>`coalesce(${k.reason}, 'unknown')`;
  const blocks = num(sql`sum(${k.blockCount})`);
  const events = countAll();
  return s.db
    .select({ reason, blocks, events })
    .from(k)
    .where(and(eq(k.workerId, workerId), gte(k.ts, from), lt(k.ts, to), inArray(k.op, ["removed", "cleared"])))
    .groupBy(reason)
    .orderBy(desc(blocks), desc(events), asc(reason))
    .limit(50);
}

/** Blocks a worker stored in [from, to) per bucket of `step` ms and retention class (null: not reported). */
export async function storedByClass(
  s: Store,
  workerId: string,
  from: number,
  to: number,
  step: number,
): Promise<{ t: number; retentionClass: string | null; blocks: number }[]> {
  const k = s.t.kvEventReads;
  const t = bucketOf(k.ts, step);
  return s.db
    .select({ t, retentionClass: k.retentionClass, blocks: num(sql`sum(${k.blockCount})`) })
    .from(k)
    .where(and(eq(k.workerId, workerId), gte(k.ts, from), lt(k.ts, to), eq(k.op, "stored")))
    .groupBy(t, k.retentionClass)
    .orderBy(asc(t))
    .limit(5000);
}
