import type { Exposition } from "./parse";
import { counterIncrease, ratePerSecond } from "./series-math";

// Dynamo's KV block manager (KVBM) metrics: block movements between tiers and per-tier hit rates. KVBM serves them on
// its own /metrics port (DYN_KVBM_METRICS=true), so they arrive either alone or beside a worker's families.

/** The KVBM counters, by the names Dynamo exposes (blocks moved; note h2d *offload* is host → disk). */
export const KVBM_COUNTERS = {
  offload_d2h: "kvbm_offload_blocks_d2h",
  offload_h2d: "kvbm_offload_blocks_h2d",
  offload_d2d: "kvbm_offload_blocks_d2d",
  onboard_h2d: "kvbm_onboard_blocks_h2d",
  onboard_d2d: "kvbm_onboard_blocks_d2d",
} as const;
export const KVBM_GAUGES = {
  host_hit_rate: "kvbm_host_cache_hit_rate",
  disk_hit_rate: "kvbm_disk_cache_hit_rate",
} as const;

type CounterKey = keyof typeof KVBM_COUNTERS;

/**
 * One KVBM reading: blocks each counter moved since the previous scrape (null until two scrapes or when not served),
 * the same as per-second rates, and the sliding-window hit rates of the host and disk tiers (0–1).
 */
export type KvbmReading = {
  blocks: Record<CounterKey, number | null>;
  per_s: Record<CounterKey, number | null>;
  host_hit_rate: number | null;
  disk_hit_rate: number | null;
  /** Families of KVBM the scrape served (the series the source reports). */
  series: string[];
};

/** True when a scrape serves any KVBM family. */
export function hasKvbm(ex: Exposition): boolean {
  for (const n of ex.families.keys()) if (n.startsWith("kvbm_")) return true;
  return false;
}

function total(ex: Exposition, name: string): number | undefined {
  const f = ex.families.get(name);
  const values = f?.samples.map((s) => s.value).filter((v) => Number.isFinite(v));
  return values && values.length ? values.reduce((a, b) => a + b, 0) : undefined;
}

function rate01(ex: Exposition, name: string): number | null {
  const f = ex.families.get(name);
  const values = f?.samples.map((s) => s.value).filter((v) => Number.isFinite(v) && v >= 0) ?? [];
  if (!values.length) return null;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.min(1, mean > 1 ? mean / 100 : mean);
}

/**
 * Read KVBM from a scrape; null when none of its families is served. Counters go through prev/next (keys `kvbm:<name>`)
 * like the other adapters' counters, so a restart (a drop) counts the new value as the increase.
 */
export function readKvbm(
  ex: Exposition,
  elapsedMs: number,
  prevCounters: Record<string, number>,
  nextCounters: Record<string, number>,
): KvbmReading | null {
  if (!hasKvbm(ex)) return null;
  const blocks = {} as Record<CounterKey, number | null>;
  const perS = {} as Record<CounterKey, number | null>;
  for (const [key, name] of Object.entries(KVBM_COUNTERS) as [CounterKey, string][]) {
    const v = total(ex, name);
    if (v === undefined) {
      blocks[key] = null;
      perS[key] = null;
      continue;
    }
    nextCounters[`kvbm:${name}`] = v;
    const inc = counterIncrease(prevCounters[`kvbm:${name}`], v);
    blocks[key] = inc === null ? null : Math.round(inc);
    perS[key] = ratePerSecond(inc, elapsedMs);
  }
  const series = [...ex.families.keys()].filter((n) => n.startsWith("kvbm_")).sort();
  return {
    blocks,
    per_s: perS,
    host_hit_rate: rate01(ex, KVBM_GAUGES.host_hit_rate),
    disk_hit_rate: rate01(ex, KVBM_GAUGES.disk_hit_rate),
    series,
  };
}
