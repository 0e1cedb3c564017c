// Chart data for the storage-tier views: blocks per tier, offload/onboard rates, hit rate per tier, the cached split. Pure.
import { onboardedFrom } from "@/lib/attribution";
import type { TierPoint } from "@/server/analysis/tiers";
import type { StorageTier } from "@/server/ingest/events";
import { formatCount } from "@/components/format";

export type TierRow = { t: number } & Record<string, number | null>;
export type TierLine = { key: string; name: string; color: string; dashed?: boolean };
export type TierChart = { rows: TierRow[]; lines: TierLine[] };

export const TIER_LABEL: Record<StorageTier, string> = {
  device: "GPU (device)",
  host: "Host memory",
  disk: "Local disk",
  shared: "Shared storage",
};
export const TIER_COLOR: Record<StorageTier, string> = {
  device: "var(--series-1)",
  host: "var(--series-2)",
  disk: "var(--series-3)",
  shared: "var(--series-4)",
};

/** Blocks held per tier at the end of each bucket, one line per tier seen (gaps before a tier's first level). */
export function tierBlockChart(points: readonly TierPoint[], tiers: readonly StorageTier[]): TierChart {
  return {
    rows: points.map((p) => Object.assign({ t: p.t }, Object.fromEntries(tiers.map((tier) => [tier, p.blocks[tier]])))),
    lines: tiers.map((tier) => ({ key: tier, name: TIER_LABEL[tier], color: TIER_COLOR[tier] })),
  };
}

/** Offload and onboard rates (blocks/s): from kv events, and from KVBM scrapes (dashed) when the worker has them. */
export function tierRateChart(points: readonly TierPoint[], hasKvbm: boolean): TierChart {
  const events = points.some((p) => p.offloadPerS !== null || p.onboardPerS !== null);
  const lines: TierLine[] = [];
  if (events)
    lines.push(
      { key: "offload", name: "Offload (kv events)", color: "var(--series-2)" },
      { key: "onboard", name: "Onboard (kv events)", color: "var(--series-5)" },
    );
  if (hasKvbm)
    lines.push(
      { key: "kvbmOffload", name: "Offload (KVBM)", color: "var(--series-2)", dashed: true },
      { key: "kvbmOnboard", name: "Onboard (KVBM)", color: "var(--series-5)", dashed: true },
    );
  return {
    rows: points.map((p) => ({
      t: p.t,
      offload: p.offloadPerS,
      onboard: p.onboardPerS,
      kvbmOffload: p.kvbmOffloadPerS,
      kvbmOnboard: p.kvbmOnboardPerS,
    })),
    lines,
  };
}

/** Hit rate per tier in percent (cached tokens from that tier over input tokens), plus KVBM's host/disk hit rates (dashed). */
export function tierHitChart(points: readonly TierPoint[], tiers: readonly StorageTier[], hasKvbm: boolean): TierChart {
  const pct = (v: number | null) => (v === null ? null : v * 100);
  const withRequests = tiers.filter((tier) => points.some((p) => p.hit[tier] !== null));
  const lines: TierLine[] = withRequests.map((tier) => ({
    key: tier,
    name: TIER_LABEL[tier],
    color: TIER_COLOR[tier],
  }));
  const kvbmHost = hasKvbm && points.some((p) => p.kvbmHostHit !== null);
  const kvbmDisk = hasKvbm && points.some((p) => p.kvbmDiskHit !== null);
  if (kvbmHost) lines.push({ key: "kvbmHost", name: "Host (KVBM)", color: TIER_COLOR.host, dashed: true });
  if (kvbmDisk) lines.push({ key: "kvbmDisk", name: "Disk (KVBM)", color: TIER_COLOR.disk, dashed: true });
  return {
    rows: points.map((p) =>
      Object.assign(
        { t: p.t, kvbmHost: pct(p.kvbmHostHit), kvbmDisk: pct(p.kvbmDiskHit) },
        Object.fromEntries(withRequests.map((tier) => [tier, pct(p.hit[tier])])),
      ),
    ),
    lines,
  };
}

export type SplitPart = { key: StorageTier | "prefetched"; label: string; tokens: number; share: number };

/** Cached tokens by tier as parts with shares of all cached tokens (prefetched is a part of device, listed apart). */
export function splitParts(split: Record<StorageTier | "prefetched", number>): SplitPart[] {
  const cached = split.device + split.host + split.disk + split.shared;
  const share = (n: number) => (cached > 0 ? n / cached : 0);
  const parts: SplitPart[] = (["device", "host", "disk", "shared"] as const)
    .filter((k) => k === "device" || split[k] > 0)
    .map((k) => ({ key: k, label: TIER_LABEL[k], tokens: split[k], share: share(split[k]) }));
  if (split.prefetched > 0)
    parts.push({
      key: "prefetched",
      label: "Prefetched before arrival",
      tokens: split.prefetched,
      share: share(split.prefetched),
    });
  return parts;
}

/** Where a turn's cached tokens came from, e.g. "device 500 · host 300 · prefetched 250"; null when the event said nothing. */
export function turnTierText(t: {
  device: number | null;
  host: number | null;
  disk: number | null;
  shared: number | null;
  prefetched: number | null;
}): string | null {
  const parts: string[] = [];
  for (const k of ["device", "host", "disk", "shared"] as const) {
    const v = t[k];
    if (v !== null && v > 0) parts.push(`${k} ${formatCount(v)}`);
  }
  if (t.prefetched !== null && t.prefetched > 0) parts.push(`prefetched ${formatCount(t.prefetched)}`);
  if (parts.length === 0) return t.device === null && t.prefetched === null ? null : "none cached";
  return parts.join(" · ");
}

/** The outcome "onboarded from <tier>" of a turn (a hit that cost time), e.g. "onboarded from host 300"; null when none. */
export function onboardedText(t: { host: number | null; disk: number | null; shared: number | null }): string | null {
  const parts = onboardedFrom(t).map((o) => `${o.tier} ${formatCount(o.tokens)}`);
  return parts.length ? `onboarded from ${parts.join(" · ")}` : null;
}
