import { and, asc, desc, eq, gte, isNotNull, lt, sql } from "drizzle-orm";
import type { CauseTotals, Span, WindowRows } from "../rows/impact";
import { num } from "./sql";
import { sessionTables } from "./session-tables";
import type { Store } from "./store";

// The impact panel's and the guard's window reads on either engine: request token sums, TTFTs, attribution's causes
// and device evictions over one window. policy.ack rows are read by db/store/guards.ts acksFrom.

/** What the impact panel and the guard measure over [from, to): request token sums, TTFTs, causes, device evictions. */
export async function windowRows(st: Store, span: Span): Promise<WindowRows> {
  const { from, to } = span;
  const { requests: r, requestCauses: rc, kvEvents: k } = sessionTables(st);
  const sum0 = (c: object) => num(sql`coalesce(sum(${c}), 0)`);
  const totalsQ = st.db
    .select({ requests: num(sql`count(*)`), inputTokens: sum0(r.inputTokens), cachedTokens: sum0(r.cachedTokens) })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to)));
  const causesQ = st.db
    .select({
      cold: sum0(rc.cold),
      diverged: sum0(rc.diverged),
      evicted: sum0(rc.evicted),
      routedAway: sum0(rc.routedAway),
      unknown: sum0(rc.unknown),
    })
    .from(rc)
    .where(and(gte(rc.arrivedAt, from), lt(rc.arrivedAt, to)));
  const reason = sql<string>`coalesce(${k.reason}, 'unknown')`;
  const blocks = num(sql`sum(${k.blockCount})`);
  const evictionsQ = st.db
    .select({ reason, blocks })
    .from(k)
    .where(
      and(gte(k.ts, from), lt(k.ts, to), eq(k.op, "removed"), sql`coalesce(${k.storageTier}, 'device') = 'device'`),
    )
    .groupBy(reason)
    .orderBy(desc(blocks), asc(reason))
    .limit(20);
  const ttft = num(sql`${r.firstTokenAt} - ${r.arrivedAt}`);
  const ttftsQ = st.db
    .select({ ttft })
    .from(r)
    .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), isNotNull(r.firstTokenAt)))
    .orderBy(ttft);
  if (!(from < to)) {
    const [[totals], [causes], evictions] = await Promise.all([totalsQ, causesQ, evictionsQ]);
    return { ...totals!, ttftsSorted: [], causes: causes as CauseTotals, evictions };
  }
  const [[totals], [causes], evictions, ttfts] = await Promise.all([totalsQ, causesQ, evictionsQ, ttftsQ]);
  return { ...totals!, ttftsSorted: ttfts.map((t) => t.ttft), causes: causes as CauseTotals, evictions };
}
