import { and, asc, desc, eq, gte, lt, sql } from "drizzle-orm";
import type { CounterSample } from "../../lib/counters";
import type { RawBucket } from "../rows/workers";
import { bucketOf, fieldsOf, indexed, lit, num } from "./sql";
import type { Store } from "./store";

// Raw worker samples bucketed for the charts, on either engine: gauge sums and each bucket's last counter sample.

const MAX_WORKERS = 500;

/** Keep the first row per (worker, bucket): two samples of one worker at the same last ts join twice. */
function firstPerBucket(rows: RawBucket[]): RawBucket[] {
  const seen = new Set<string>();
  return rows.filter((r) => {
    const k = `${r.workerId}\u0000${r.t}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * Raw samples in [from, to) bucketed by `step` ms (epoch-aligned): gauge sums and each bucket's last counter sample,
 * ordered by worker and time, plus each worker's last sample before `from` as the baseline for the first delta.
 */
export async function rawBuckets(
  s: Store,
  opts: { from: number; to: number; step: number; workerId?: string },
): Promise<{ rows: RawBucket[]; baselines: Map<string, CounterSample> }> {
  const { from, to, step, workerId } = opts;
  const w = s.t.workerStats;
  const t = bucketOf(w.ts, step);
  // Per bucket and worker: sums and the last sample's time, then that sample's counters joined back by (worker, ts).
  const grouped = (a: number, b: number) => {
    const g = s.db
      .select({
        workerId: fieldsOf({ w: w.workerId }).w.as("g_worker"),
        t: workerId === undefined ? sql<number>`${lit(a - (a % step))}`.as("t") : t.as("t"),
        samples: num(sql`count(*)`).as("samples"),
        kvActive: num(sql`sum(${w.kvActiveBlocks})`).as("kv_active"),
        kvTotal: num(sql`sum(${w.kvTotalBlocks})`).as("kv_total"),
        lastTs: num(sql`max(${w.ts})`).as("last_ts"),
      })
      .from(workerId === undefined ? indexed(s, w, "worker_stats_ts") : w)
      .where(and(gte(w.ts, a), lt(w.ts, b), workerId === undefined ? undefined : eq(w.workerId, workerId)));
    return (workerId === undefined ? g.groupBy(w.workerId) : g.groupBy(w.workerId, t)).as("g");
  };
  const read = async (a: number, b: number): Promise<RawBucket[]> => {
    const g = grouped(a, b);
    const rows = await s.db
      .select({
        workerId: g.workerId,
        t: num(sql`${g.t}`),
        samples: num(sql`${g.samples}`),
        kvActive: num(sql`${g.kvActive}`),
        kvTotal: num(sql`${g.kvTotal}`),
        lastTs: num(sql`${g.lastTs}`),
        lastQuery: w.prefixQueryTokens,
        lastHit: w.prefixHitTokens,
      })
      .from(g)
      .innerJoin(w, and(eq(w.workerId, g.workerId), eq(w.ts, g.lastTs)))
      .orderBy(asc(g.workerId), asc(g.t))
      .limit(MAX_WORKERS * 4 * Math.max(1, Math.ceil((b - a) / step)));
    return firstPerBucket(rows);
  };
  let rows: RawBucket[];
  if (workerId !== undefined) rows = await read(from, to);
  else {
    // Across all workers, one grouped query per bucket is cheaper than one over the range: the time index keeps each
    // scan to its bucket and SQLite sorts many small groups faster than one large one.
    const chunks: Promise<RawBucket[]>[] = [];
    for (let c = from - (from % step); c < to; c += step) chunks.push(read(Math.max(c, from), Math.min(c + step, to)));
    rows = (await Promise.all(chunks))
      .flat()
      .sort((x, y) => (x.workerId === y.workerId ? x.t - y.t : x.workerId < y.workerId ? -1 : 1));
  }
  const baselines = new Map<string, CounterSample>();
  await Promise.all(
    [...new Set(rows.map((r) => r.workerId))].map(async (id) => {
      const [b] = await s.db
        .select({ ts: w.ts, query: w.prefixQueryTokens, hit: w.prefixHitTokens })
        .from(w)
        .where(and(eq(w.workerId, id), lt(w.ts, from)))
        .orderBy(desc(w.ts))
        .limit(1);
      if (b) baselines.set(id, b);
    }),
  );
  return { rows, baselines };
}
