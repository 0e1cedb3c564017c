// Rows the tier queries return (db/store/tiers.ts), read by server/analysis/tiers.ts.

export type KvTierRow = {
  minute: number;
  tier: string;
  stored: number;
  removed: number;
  offloaded: number;
  onboarded: number;
  blocks: number;
};

export type RequestTierRow = {
  minute: number;
  input: number;
  device: number;
  host: number;
  disk: number;
  shared: number;
  prefetched: number;
};

export type KvbmRow = {
  minute: number;
  offloaded: number;
  onboarded: number;
  hostHitRate: number | null;
  diskHitRate: number | null;
};
