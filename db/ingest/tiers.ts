import type Database from "better-sqlite3";
import type { IngestRowOf } from "../rows/ingest";
import { minuteOf } from "../../lib/counters";

// Per-batch accumulators for the storage-tier rollups (kv_tiers_1m, worker_tier_blocks, request_tiers_1m).

export type TierStatements = {
  levelGet: Database.Statement;
  levelPut: Database.Statement;
  kv1m: Database.Statement;
  requests1m: Database.Statement;
};

/** Prepared statements of the tier rollups for one connection. */
export function tierStatements(sqlite: Database.Database): TierStatements {
  return {
    levelGet: sqlite.prepare("SELECT blocks FROM worker_tier_blocks WHERE worker_id = ? AND tier = ?"),
    levelPut: sqlite.prepare(`INSERT INTO worker_tier_blocks (worker_id, tier, blocks, ts) VALUES (?, ?, ?, ?)
      ON CONFLICT(worker_id, tier) DO UPDATE SET blocks = excluded.blocks, ts = max(ts, excluded.ts)`),
    kv1m: sqlite.prepare(`INSERT INTO kv_tiers_1m (worker_id, minute, tier, stored_blocks, removed_blocks, offloaded_blocks, onboarded_blocks, blocks)
      VALUES (@w, @m, @tier, @stored, @removed, @offloaded, @onboarded, @blocks)
      ON CONFLICT(worker_id, minute, tier) DO UPDATE SET stored_blocks = stored_blocks + excluded.stored_blocks,
        removed_blocks = removed_blocks + excluded.removed_blocks, offloaded_blocks = offloaded_blocks + excluded.offloaded_blocks,
        onboarded_blocks = onboarded_blocks + excluded.onboarded_blocks, blocks = excluded.blocks`),
    requests1m:
      sqlite.prepare(`INSERT INTO request_tiers_1m (worker_id, minute, input_tokens, device_tokens, host_tokens, disk_tokens, shared_tokens, prefetched_tokens)
      VALUES (@w, @m, @input, @device, @host, @disk, @shared, @prefetched)
      ON CONFLICT(worker_id, minute) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens, device_tokens = device_tokens + excluded.device_tokens,
        host_tokens = host_tokens + excluded.host_tokens, disk_tokens = disk_tokens + excluded.disk_tokens,
        shared_tokens = shared_tokens + excluded.shared_tokens, prefetched_tokens = prefetched_tokens + excluded.prefetched_tokens`),
  };
}

type KvRow = {
  w: string;
  m: number;
  tier: string;
  stored: number;
  removed: number;
  offloaded: number;
  onboarded: number;
  blocks: number;
};
type RequestRow = {
  w: string;
  m: number;
  input: number;
  device: number;
  host: number;
  disk: number;
  shared: number;
  prefetched: number;
};
type KvEvent = IngestRowOf<"kv.stored"> | IngestRowOf<"kv.removed"> | IngestRowOf<"kv.cleared">;

/**
 * Tier rollups of one batch. A block stored on a tier other than device is an offload (into that tier); one stored on
 * device with onboarded_from is an onboard. Block counts run per worker and tier and never go below 0; kv.cleared
 * empties the device tier (the engine's cache). Events are taken in batch order.
 */
export class TierRollups {
  private levels = new Map<string, { w: string; tier: string; blocks: number; ts: number }>();
  private kv = new Map<string, KvRow>();
  private requests = new Map<string, RequestRow>();

  constructor(private st: TierStatements) {}

  addKv(e: KvEvent) {
    const tier = e.kind === "kv.cleared" ? "device" : (e.storage_tier ?? "device");
    const level = this.level(e.worker_id, tier, e.ts);
    const row = this.row(e.worker_id, minuteOf(e.ts), tier);
    if (e.kind === "kv.stored") {
      const n = e.block_hashes.length;
      level.blocks += n;
      row.stored += n;
      if (tier !== "device") row.offloaded += n;
      else if (e.onboarded_from !== undefined) row.onboarded += n;
    } else {
      const n = e.kind === "kv.cleared" ? level.blocks : Math.min(level.blocks, e.block_hashes.length);
      level.blocks -= n;
      row.removed += e.kind === "kv.cleared" ? n : e.block_hashes.length;
    }
    if (e.ts > level.ts) level.ts = e.ts;
    row.blocks = level.blocks;
  }

  addRequest(e: IngestRowOf<"request">) {
    if (e.worker_id === undefined) return;
    const m = minuteOf(e.arrived_at);
    const k = `${e.worker_id}\u0000${m}`;
    let r = this.requests.get(k);
    if (!r)
      this.requests.set(
        k,
        (r = { w: e.worker_id, m, input: 0, device: 0, host: 0, disk: 0, shared: 0, prefetched: 0 }),
      );
    const t = e.cached_tokens_by_tier;
    r.input += e.input_tokens;
    r.device += t === undefined ? e.cached_tokens : (t.device ?? 0);
    r.host += t?.host ?? 0;
    r.disk += t?.disk ?? 0;
    r.shared += t?.shared ?? 0;
    r.prefetched += e.prefetched_tokens ?? 0;
  }

  flush() {
    for (const r of this.kv.values()) this.st.kv1m.run(r);
    for (const l of this.levels.values()) this.st.levelPut.run(l.w, l.tier, l.blocks, l.ts);
    for (const r of this.requests.values()) this.st.requests1m.run(r);
  }

  private level(w: string, tier: string, ts: number) {
    const k = `${w}\u0000${tier}`;
    let l = this.levels.get(k);
    if (!l) {
      const stored = this.st.levelGet.get(w, tier) as { blocks: number } | undefined;
      this.levels.set(k, (l = { w, tier, blocks: stored?.blocks ?? 0, ts }));
    }
    return l;
  }

  private row(w: string, m: number, tier: string): KvRow {
    const k = `${w}\u0000${m}\u0000${tier}`;
    let r = this.kv.get(k);
    if (!r) this.kv.set(k, (r = { w, m, tier, stored: 0, removed: 0, offloaded: 0, onboarded: 0, blocks: 0 }));
    return r;
  }
}
