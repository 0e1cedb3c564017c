import { and, asc, desc, eq, gte, isNotNull, lt, sql } from "drizzle-orm";
import type { CauseTotals, Span, WindowRows } from "../rows/impact";
import { num } from "./sql";
import { sessionTables } from "./session-tables";
import type { RequestScope } from "./scope";
import type { Store } from "./store";

// The impact panel's and the guard's window reads on either engine: request token sums, TTFTs, attribution's causes
// and device evictions over one window. policy.ack rows are read by db/store/guards.ts acksFrom.

/**
 * What the impact panel and the guard measure over [from, to): request token sums, TTFTs, causes, device evictions; of
 * one cluster's requests and KV events, and of one model's requests, as `scope` says (absent: the whole fleet).
 */
export async function windowRows(st: Store, span: Span, scope?: RequestScope): Promise<WindowRows> {
  const { from, to } = span;
  const { requests: r, requestCauses: rc, kvEvents: k } = sessionTables(st);
  const cluster = scope?.clusterId;
  const model = scope?.model;
  // A model's requests are its own; evictions carry no model and stay the cluster's.
  const of = (c: typeof r.clusterId | typeof k.clusterId) => (cluster === undefined ? undefined : eq(c, cluster));
  const ofRequests = () => and(of(r.clusterId), model === undefined ? undefined : eq(r.model, model));
  const sum0 = (c: object) => num(sql`coalesce(sum(${c}), 0)`);
  const totalsQ = st.db
    .select({ requests: num(sql`count(*)`), inputTokens: sum0(r.inputTokens), cachedTokens: sum0(r.cachedTokens) })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), ofRequests()));
  const causesFrom = st.db
    .select({
      cold: sum0(rc.cold),
      diverged: sum0(rc.diverged),
      evicted: sum0(rc.evicted),
      routedAway: sum0(rc.routedAway),
      unknown: sum0(rc.unknown),
    })
    .from(rc);
  const causesIn = and(gte(rc.arrivedAt, from), lt(rc.arrivedAt, to));
  // A cause row names its request by rid; the request says its cluster.
  const causesQ =
    cluster === undefined && model === undefined
      ? causesFrom.where(causesIn)
      : causesFrom.innerJoin(r, eq(r.rid, rc.rid)).where(and(causesIn, ofRequests()));
  const reason = sql<string>`coalesce(${k.reason}, 'unknown')`;
  const blocks = num(sql`sum(${k.blockCount})`);
  const evictionsQ = st.db
    .select({ reason, blocks })
    .from(k)
    .where(
      and(
        gte(k.ts, from),
        lt(k.ts, to),
        eq(k.op, "removed"),
        sql`coalesce(${k.storageTier}, 'device') = 'device'`,
        of(k.clusterId),
      ),
    )
    .groupBy(reason)
    .orderBy(desc(blocks), asc(reason))
    .limit(20);
  const ttft = num(sql`${r.firstTokenAt} - ${r.arrivedAt}`);
  const ttftsQ = st.db
    .select({ ttft })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), isNotNull(r.firstTokenAt), ofRequests()))
    .orderBy(ttft);
  if (!(from < to)) {
    const [[totals], [causes], evictions] = await Promise.all([totalsQ, causesQ, evictionsQ]);
    return { ...totals!, ttftsSorted: [], causes: causes as CauseTotals, evictions };
  }
  const [[totals], [causes], evictions, ttfts] = await Promise.all([totalsQ, causesQ, evictionsQ, ttftsQ]);
  return { ...totals!, ttftsSorted: ttfts.map((t) => t.ttft), causes: causes as CauseTotals, evictions };
}
