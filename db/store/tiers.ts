import { and, asc, eq, gte, lt, sql, type AnyColumn } from "drizzle-orm";
import type { KvbmRow, KvTierRow, RequestTierRow } from "../rows/tiers";
import { binary } from "./session-list";
import { num } from "./sql";
import type { Store } from "./store";

// Reads and writes of the storage-tier rollups on either engine. Every read takes [from, to) (Unix ms) and is
// bounded; minutes are taken from the minute holding `from`.

const MAX_ROWS = 20_000;
const minuteOf = (ms: number) => ms - (ms % 60_000);

/** One worker's kv_tiers_1m rows with minutes in [from, to), oldest first (a minute's tiers byte by byte). */
export async function kvTierRows(s: Store, workerId: string, from: number, to: number): Promise<KvTierRow[]> {
  const k = s.t.kvTiers1m;
  return s.db
    .select({
      minute: k.minute,
      tier: k.tier,
      stored: k.storedBlocks,
      removed: k.removedBlocks,
      offloaded: k.offloadedBlocks,
      onboarded: k.onboardedBlocks,
      blocks: k.blocks,
    })
    .from(k)
    .where(and(eq(k.workerId, workerId), gte(k.minute, minuteOf(from)), lt(k.minute, to)))
    .orderBy(asc(k.minute), asc(binary(s, sql`${k.tier}`)))
    .limit(MAX_ROWS);
}

/** Each tier's block count at its last minute before `from` (tiers without earlier rows are absent), by tier. */
export async function tierLevelsBefore(
  s: Store,
  workerId: string,
  from: number,
): Promise<{ tier: string; blocks: number }[]> {
  const k = s.t.kvTiers1m;
  const last = s.db
    .select({ tier: k.tier, minute: sql<number>`max(${k.minute})`.as("last_minute") })
    .from(k)
    .where(and(eq(k.workerId, workerId), lt(k.minute, minuteOf(from))))
    .groupBy(k.tier)
    .as("l");
  return s.db
    .select({ tier: k.tier, blocks: k.blocks })
    .from(k)
    .innerJoin(last, and(eq(k.tier, last.tier), eq(k.minute, last.minute)))
    .where(eq(k.workerId, workerId))
    .orderBy(asc(binary(s, sql`${k.tier}`)))
    .limit(16);
}

/** One worker's per-minute cached tokens by tier in [from, to), oldest first. */
export async function requestTierRows(s: Store, workerId: string, from: number, to: number): Promise<RequestTierRow[]> {
  const r = s.t.requestTiers1m;
  return s.db
    .select({
      minute: r.minute,
      input: r.inputTokens,
      device: r.deviceTokens,
      host: r.hostTokens,
      disk: r.diskTokens,
      shared: r.sharedTokens,
      prefetched: r.prefetchedTokens,
    })
    .from(r)
    .where(and(eq(r.workerId, workerId), gte(r.minute, minuteOf(from)), lt(r.minute, to)))
    .orderBy(asc(r.minute))
    .limit(MAX_ROWS);
}

/** One worker's KVBM minutes in [from, to): offloads (device → host or disk), onboards (host or disk → device), hit rates. */
export async function kvbmRows(s: Store, workerId: string, from: number, to: number): Promise<KvbmRow[]> {
  const k = s.t.kvbm1m;
  return s.db
    .select({
      minute: k.minute,
      offloaded: num(sql`${k.offloadD2h} + ${k.offloadD2d}`),
      onboarded: num(sql`${k.onboardH2d} + ${k.onboardD2d}`),
      hostHitRate: k.hostHitRate,
      diskHitRate: k.diskHitRate,
    })
    .from(k)
    .where(and(eq(k.workerId, workerId), gte(k.minute, minuteOf(from)), lt(k.minute, to)))
    .orderBy(asc(k.minute))
    .limit(MAX_ROWS);
}

export type CachedTierSums = { cached: number; host: number; disk: number; shared: number; prefetched: number };

/** Cluster cached-token sums by tier over the request minutes overlapping [from, to) (0 when none). */
export async function cachedTierSums(s: Store, from: number, to: number): Promise<CachedTierSums> {
  const r = s.t.requests1m;
  const sum = (c: AnyColumn) => num(sql`coalesce(sum(${c}), 0)`);
  const [row] = await s.db
    .select({
      cached: sum(r.cachedTokens),
      host: sum(r.cachedHostTokens),
      disk: sum(r.cachedDiskTokens),
      shared: sum(r.cachedSharedTokens),
      prefetched: sum(r.prefetchedTokens),
    })
    .from(r)
    .where(and(gte(r.minute, minuteOf(from)), lt(r.minute, to)));
  return row ?? { cached: 0, host: 0, disk: 0, shared: 0, prefetched: 0 };
}

export type KvbmSample = {
  workerId: string;
  minute: number;
  offloadD2h: number;
  offloadH2d: number;
  offloadD2d: number;
  onboardH2d: number;
  onboardD2d: number;
  hostHitRate: number | null;
  diskHitRate: number | null;
};

/**
 * Add one KVBM scrape's block movements to its worker's minute; the latest non-null hit rates win. A transaction of
 * its own, like putStatus: a scraper pass runs on the event loop, where a bare write would block on another
 * connection's lock.
 */
export async function addKvbmSample(store: Store, v: KvbmSample): Promise<void> {
  await store.tx((s) => upsertKvbm(s, v));
}

async function upsertKvbm(s: Store, v: KvbmSample): Promise<void> {
  const k = s.t.kvbm1m;
  const add = (c: AnyColumn) => sql`${c} + excluded.${sql.identifier(c.name)}`;
  const kept = (c: AnyColumn) => sql`coalesce(excluded.${sql.identifier(c.name)}, ${c})`;
  await s.db
    .insert(k)
    .values(v)
    .onConflictDoUpdate({
      target: [k.workerId, k.minute],
      set: {
        offloadD2h: add(k.offloadD2h),
        offloadH2d: add(k.offloadH2d),
        offloadD2d: add(k.offloadD2d),
        onboardH2d: add(k.onboardH2d),
        onboardD2d: add(k.onboardD2d),
        hostHitRate: kept(k.hostHitRate),
        diskHitRate: kept(k.diskHitRate),
      },
    });
}
