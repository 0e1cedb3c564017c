import type { Db } from "../client";
import type { KvbmRow, KvTierRow, RequestTierRow } from "../rows/tiers";

// Reads and writes of the storage-tier rollups. Every read takes [from, to) (Unix ms) and is bounded.

const MAX_ROWS = 20_000;

/** One worker's kv_tiers_1m rows with minutes in [from, to), oldest first. */
export function kvTierRows(db: Db, workerId: string, from: number, to: number): KvTierRow[] {
  return db.$client
    .prepare(
      `SELECT minute, tier, stored_blocks AS stored, removed_blocks AS removed, offloaded_blocks AS offloaded, onboarded_blocks AS onboarded, blocks
       FROM kv_tiers_1m WHERE worker_id = ? AND minute >= ? AND minute < ? ORDER BY minute LIMIT ${MAX_ROWS}`,
    )
    .all(workerId, from - (from % 60_000), to) as KvTierRow[];
}

/** Each tier's block count at the last minute before `from` (tiers without earlier rows are absent). */
export function tierLevelsBefore(db: Db, workerId: string, from: number): { tier: string; blocks: number }[] {
  return db.$client
    .prepare(
      "SELECT tier, blocks, max(minute) AS minute FROM kv_tiers_1m WHERE worker_id = ? AND minute < ? GROUP BY tier LIMIT 16",
    )
    .all(workerId, from - (from % 60_000))
    .map((r) => ({ tier: (r as { tier: string }).tier, blocks: (r as { blocks: number }).blocks }));
}

/** One worker's per-minute cached tokens by tier in [from, to), oldest first. */
export function requestTierRows(db: Db, workerId: string, from: number, to: number): RequestTierRow[] {
  return db.$client
    .prepare(
      `SELECT minute, input_tokens AS input, device_tokens AS device, host_tokens AS host, disk_tokens AS disk, shared_tokens AS shared, prefetched_tokens AS prefetched
       FROM request_tiers_1m WHERE worker_id = ? AND minute >= ? AND minute < ? ORDER BY minute LIMIT ${MAX_ROWS}`,
    )
    .all(workerId, from - (from % 60_000), to) as RequestTierRow[];
}

/** One worker's KVBM minutes in [from, to): offloads (device → host or disk), onboards (host or disk → device), hit rates. */
export function kvbmRows(db: Db, workerId: string, from: number, to: number): KvbmRow[] {
  return db.$client
    .prepare(
      `SELECT minute, offload_d2h + offload_d2d AS offloaded, onboard_h2d + onboard_d2d AS onboarded, host_hit_rate AS hostHitRate, disk_hit_rate AS diskHitRate
       FROM kvbm_1m WHERE worker_id = ? AND minute >= ? AND minute < ? ORDER BY minute LIMIT ${MAX_ROWS}`,
    )
    .all(workerId, from - (from % 60_000), to) as KvbmRow[];
}

/** Cluster cached-token sums by tier over the request minutes overlapping [from, to). */
export function cachedTierSums(
  db: Db,
  from: number,
  to: number,
): { cached: number; host: number; disk: number; shared: number; prefetched: number } {
  return db.$client
    .prepare(
      `SELECT coalesce(sum(cached_tokens), 0) AS cached, coalesce(sum(cached_host_tokens), 0) AS host, coalesce(sum(cached_disk_tokens), 0) AS disk,
         coalesce(sum(cached_shared_tokens), 0) AS shared, coalesce(sum(prefetched_tokens), 0) AS prefetched FROM requests_1m WHERE minute >= ? AND minute < ?`,
    )
    .get(from - (from % 60_000), to) as {
    cached: number;
    host: number;
    disk: number;
    shared: number;
    prefetched: number;
  };
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

/** Add one KVBM scrape's block movements to its worker's minute; the latest non-null hit rates win. */
export function addKvbmSample(db: Db, s: KvbmSample): void {
  db.$client
    .prepare(
      `INSERT INTO kvbm_1m (worker_id, minute, offload_d2h, offload_h2d, offload_d2d, onboard_h2d, onboard_d2d, host_hit_rate, disk_hit_rate)
       VALUES (@workerId, @minute, @offloadD2h, @offloadH2d, @offloadD2d, @onboardH2d, @onboardD2d, @hostHitRate, @diskHitRate)
       ON CONFLICT(worker_id, minute) DO UPDATE SET offload_d2h = offload_d2h + excluded.offload_d2h, offload_h2d = offload_h2d + excluded.offload_h2d,
         offload_d2d = offload_d2d + excluded.offload_d2d, onboard_h2d = onboard_h2d + excluded.onboard_h2d, onboard_d2d = onboard_d2d + excluded.onboard_d2d,
         host_hit_rate = coalesce(excluded.host_hit_rate, host_hit_rate), disk_hit_rate = coalesce(excluded.disk_hit_rate, disk_hit_rate)`,
    )
    .run(s);
}
