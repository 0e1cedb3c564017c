import type { Db } from "../client";
import type { KvbmSample } from "../store/tiers";

// The KVBM scrape's write on SQLite, synchronous for the scraper (server/sources/prometheus/scraper.ts). The tier
// pages read through the store (db/store/tiers.ts), which also writes KVBM minutes on either engine.

export type { KvbmSample };

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
