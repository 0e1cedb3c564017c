// Storage-tier views from plain rows (kv_tiers_1m, request_tiers_1m, kvbm_1m, requests_1m). Pure: rows and range in.
import type { StorageTier } from "../ingest/events";
import { bucketStep } from "./workers";
import type { KvTierRow, RequestTierRow, KvbmRow } from "../../db/rows/tiers";
export type { KvTierRow, RequestTierRow, KvbmRow } from "../../db/rows/tiers";

export const TIERS: readonly StorageTier[] = ["device", "host", "disk", "shared"];
const MINUTE = 60_000;

/** One bucket of a worker's tier view: blocks held per tier at its end, blocks moved per second, hit rate per tier (0–1). */
export type TierPoint = {
  t: number;
  blocks: Record<StorageTier, number | null>;
  offloadPerS: number | null;
  onboardPerS: number | null;
  kvbmOffloadPerS: number | null;
  kvbmOnboardPerS: number | null;
  hit: Record<StorageTier, number | null>;
  prefetched: number | null;
  kvbmHostHit: number | null;
  kvbmDiskHit: number | null;
};

export type WorkerTierView = {
  step: number;
  points: TierPoint[];
  /** Tiers any row named (device first); empty when the worker reported nothing tier-related in the range. */
  tiers: StorageTier[];
  hasKvbm: boolean;
  /** Blocks moved per kv events (offloaded, onboarded) and per KVBM counters (kvbm*), over the range. */
  totals: {
    offloaded: number;
    onboarded: number;
    kvbmOffloaded: number;
    kvbmOnboarded: number;
    input: number;
    cached: Record<StorageTier, number>;
    prefetched: number;
  };
};

/** Bucket width for tier charts: the usual step for the span, never below the rollups' minute. */
export function tierStep(spanMs: number): number {
  return Math.max(MINUTE, bucketStep(spanMs));
}

const isTier = (t: string): t is StorageTier => (TIERS as readonly string[]).includes(t);
const none = (): Record<StorageTier, number | null> => ({ device: null, host: null, disk: null, shared: null });

/**
 * A worker's tier view over [from, to) in buckets of `step`. Block counts carry forward from `before` (each tier's
 * level before the range) and from bucket to bucket, null until a tier has any level; event rates are blocks per second,
 * 0 in buckets without movement once the worker reported tiered kv events in the range (null when it reported none);
 * KVBM rates and hit rates are null in buckets without a scrape; hit rates are tier tokens over input tokens of the bucket's requests.
 */
export function workerTierView(input: {
  kv: KvTierRow[];
  requests: RequestTierRow[];
  kvbm: KvbmRow[];
  before: { tier: string; blocks: number }[];
  from: number;
  to: number;
  step: number;
}): WorkerTierView {
  const { from, to, step } = input;
  const start = from - (from % step);
  const n = Math.max(0, Math.ceil((to - start) / step));
  const points: TierPoint[] = Array.from({ length: n }, (_, i) => ({
    t: start + i * step,
    blocks: none(),
    offloadPerS: null,
    onboardPerS: null,
    kvbmOffloadPerS: null,
    kvbmOnboardPerS: null,
    hit: none(),
    prefetched: null,
    kvbmHostHit: null,
    kvbmDiskHit: null,
  }));
  const at = (minute: number) => points[Math.floor((minute - start) / step)];
  const seen = new Set<StorageTier>();
  const totals: WorkerTierView["totals"] = {
    offloaded: 0,
    onboarded: 0,
    kvbmOffloaded: 0,
    kvbmOnboarded: 0,
    input: 0,
    cached: { device: 0, host: 0, disk: 0, shared: 0 },
    prefetched: 0,
  };
  const perS = step / 1000;
  const add = (v: number | null, x: number) => (v ?? 0) + x;

  const level: Record<StorageTier, number | null> = none();
  for (const b of input.before) if (isTier(b.tier)) level[b.tier] = b.blocks;
  const kv = [...input.kv].sort((a, b) => a.minute - b.minute);
  for (const r of kv) {
    const p = at(r.minute);
    if (!p || !isTier(r.tier)) continue;
    seen.add(r.tier);
    p.blocks[r.tier] = r.blocks;
    p.offloadPerS = add(p.offloadPerS, r.offloaded / perS);
    p.onboardPerS = add(p.onboardPerS, r.onboarded / perS);
    totals.offloaded += r.offloaded;
    totals.onboarded += r.onboarded;
  }
  const anyKv = kv.some((r) => at(r.minute) !== undefined);
  for (const p of points) {
    if (anyKv) {
      p.offloadPerS ??= 0;
      p.onboardPerS ??= 0;
    }
    for (const tier of TIERS) {
      if (p.blocks[tier] === null) p.blocks[tier] = level[tier];
      else level[tier] = p.blocks[tier];
    }
  }
  for (const tier of TIERS) if (input.before.some((b) => b.tier === tier && b.blocks > 0)) seen.add(tier);

  const sums = new Map<TierPoint, { input: number } & Record<StorageTier | "prefetched", number>>();
  for (const r of input.requests) {
    const p = at(r.minute);
    if (!p) continue;
    let s = sums.get(p);
    if (!s) sums.set(p, (s = { input: 0, device: 0, host: 0, disk: 0, shared: 0, prefetched: 0 }));
    s.input += r.input;
    s.prefetched += r.prefetched;
    for (const tier of TIERS) {
      s[tier] += r[tier];
      totals.cached[tier] += r[tier];
      if (r[tier] > 0) seen.add(tier);
    }
    totals.input += r.input;
    totals.prefetched += r.prefetched;
  }
  for (const [p, s] of sums) {
    if (s.input === 0) continue;
    for (const tier of TIERS) p.hit[tier] = s[tier] / s.input;
    p.prefetched = s.prefetched;
  }

  const rates = new Map<TierPoint, { host: number[]; disk: number[] }>();
  for (const r of input.kvbm) {
    const p = at(r.minute);
    if (!p) continue;
    p.kvbmOffloadPerS = add(p.kvbmOffloadPerS, r.offloaded / perS);
    totals.kvbmOffloaded += r.offloaded;
    totals.kvbmOnboarded += r.onboarded;
    p.kvbmOnboardPerS = add(p.kvbmOnboardPerS, r.onboarded / perS);
    let h = rates.get(p);
    if (!h) rates.set(p, (h = { host: [], disk: [] }));
    if (r.hostHitRate !== null) h.host.push(r.hostHitRate);
    if (r.diskHitRate !== null) h.disk.push(r.diskHitRate);
  }
  const mean = (v: number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : null);
  for (const [p, h] of rates) {
    p.kvbmHostHit = mean(h.host);
    p.kvbmDiskHit = mean(h.disk);
  }
  const tiers = TIERS.filter((t) => seen.has(t));
  return { step, points, tiers, hasKvbm: input.kvbm.length > 0, totals };
}

/** Cluster cached tokens by tier from request rollup sums; null when no tier other than device (and no prefetch) has data. */
export function cachedSplit(sums: {
  cached: number;
  host: number;
  disk: number;
  shared: number;
  prefetched: number;
}): Record<StorageTier | "prefetched", number> | null {
  if (sums.host + sums.disk + sums.shared + sums.prefetched === 0) return null;
  return {
    device: Math.max(0, sums.cached - sums.host - sums.disk - sums.shared),
    host: sums.host,
    disk: sums.disk,
    shared: sums.shared,
    prefetched: sums.prefetched,
  };
}
