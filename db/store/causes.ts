import { and, eq, gte, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { RequestScope } from "./scope";
import { bucketOf, lit, num, numOrNull } from "./sql";
import { sessionTables } from "./session-tables";
import type { Store } from "./store";

// Reads of attribution's outputs on either engine: the cluster-wide causes series (causes_1m) and the findings'
// inputs (session summaries, request causes joined with their requests on rid).

export type CauseBucket = {
  t: number;
  cold: number;
  diverged: number;
  evicted: number;
  routedAway: number;
  unknown: number;
};

/** Recomputed tokens by cause per bucket of `step` ms over [from, to), from the per-minute sums; empty buckets absent. */
export async function causeBuckets(st: Store, from: number, to: number, step: number): Promise<CauseBucket[]> {
  const { causes1m: c } = sessionTables(st);
  const t = bucketOf(c.minute, Math.max(60_000, step));
  return st.db
    .select({
      t,
      cold: num(sql`sum(${c.cold})`),
      diverged: num(sql`sum(${c.diverged})`),
      evicted: num(sql`sum(${c.evicted})`),
      routedAway: num(sql`sum(${c.routedAway})`),
      unknown: num(sql`sum(${c.unknown})`),
    })
    .from(c)
    .where(and(gte(c.minute, from - (from % 60_000)), lt(c.minute, to)))
    .groupBy(t)
    .orderBy(t)
    .limit(5000);
}

export type FindingInputs = {
  sessions: { sessionId: string; local0: string | null; local1: string | null; diverged: number }[];
  ttft: { divergedMean: number | null; divergedTurns: number; cleanMean: number | null };
  waits: {
    waits: number;
    heldTokens: number;
    survivedTokens: number;
    waitMs: number;
    prefetchedTokens: number;
    onboardedTokens: number;
    onboardMs: number;
    onboardTurns: number;
  };
};

/** 1 where cond holds, else 0 (SQLite sums comparisons; PostgreSQL's are boolean). */
const count1 = (cond: ReturnType<typeof sql>) => sql`CASE WHEN ${cond} THEN 1 ELSE 0 END`;

/** Inputs of the findings over sessions active in [from, to): first-block local hashes, TTFT means, tool-wait sums. */
export async function findingInputs(st: Store, from: number, to: number, rs?: RequestScope): Promise<FindingInputs> {
  const { sessionSummaries: s, requestCauses: rc, requests: r } = sessionTables(st);
  // A scope's: turns of its requests, and sessions with a request of it in the range.
  const ofScope = and(
    rs?.clusterId === undefined ? undefined : eq(r.clusterId, rs.clusterId),
    rs?.model === undefined ? undefined : eq(r.model, rs.model),
  );
  const scopedSessions = rs
    ? inArray(
        s.sessionId,
        st.db
          .selectDistinct({ id: r.sessionId })
          .from(r)
          .where(and(gte(r.arrivedAt, from), lt(r.arrivedAt, to), ofScope)),
      )
    : undefined;
  const sessionsQ = st.db
    .select({ sessionId: s.sessionId, local0: s.local0, local1: s.local1, diverged: s.diverged })
    .from(s)
    .where(and(gte(s.lastAt, from), lt(s.firstAt, to), isNotNull(s.local1), scopedSessions))
    .limit(20_000);
  const ttftMs = sql`${r.firstTokenAt} - ${r.arrivedAt}`;
  const ttftQ = st.db
    .select({
      divergedMean: numOrNull(sql`avg(CASE WHEN ${rc.diverged} > 0 THEN ${ttftMs} END)`),
      divergedTurns: numOrNull(sql`sum(${count1(sql`${rc.diverged} > 0`)})`),
      cleanMean: numOrNull(sql`avg(CASE WHEN ${rc.recomputed} * ${lit(10)} < ${r.inputTokens} THEN ${ttftMs} END)`),
    })
    .from(rc)
    .innerJoin(r, eq(r.rid, rc.rid))
    .where(and(gte(rc.arrivedAt, from), lt(rc.arrivedAt, to), isNotNull(r.firstTokenAt), ofScope));
  const onboarded = sql`coalesce(${r.cachedHostTokens}, 0) + coalesce(${r.cachedDiskTokens}, 0) + coalesce(${r.cachedSharedTokens}, 0)`;
  const total = (e: ReturnType<typeof sql>) => num(sql`coalesce(sum(${e}), 0)`);
  const waitsQ = st.db
    .select({
      waits: num(sql`count(*)`),
      heldTokens: total(sql`${rc.heldTokens}`),
      survivedTokens: total(sql`${rc.survivedTokens}`),
      waitMs: total(sql`${rc.waitMs}`),
      prefetchedTokens: total(sql`${r.prefetchedTokens}`),
      onboardedTokens: total(onboarded),
      onboardMs: total(sql`${r.onboardMs}`),
      onboardTurns: total(count1(sql`${onboarded} > 0`)),
    })
    .from(rc)
    .innerJoin(r, eq(r.rid, rc.rid))
    .where(and(gte(rc.arrivedAt, from), lt(rc.arrivedAt, to), isNotNull(rc.waitMs), ofScope));
  const [sessions, [ttft], [waits]] = await Promise.all([sessionsQ, ttftQ, waitsQ]);
  return { sessions, ttft: { ...ttft!, divergedTurns: ttft!.divergedTurns ?? 0 }, waits: waits! };
}
