import { describe, expect, it } from "vitest";
import { cachedSplit, tierStep, workerTierView } from "./tiers";

const M = 1_764_417_600_000;
const MIN = 60_000;

describe("workerTierView", () => {
  const base = { kv: [], requests: [], kvbm: [], before: [], from: M, to: M + 4 * MIN, step: MIN };

  it("carries block counts forward from before the range and between buckets; a tier is null until it has a level", () => {
    const v = workerTierView({
      ...base,
      before: [{ tier: "device", blocks: 10 }],
      kv: [
        { minute: M + MIN, tier: "host", stored: 4, removed: 0, offloaded: 4, onboarded: 0, blocks: 4 },
        { minute: M + MIN, tier: "device", stored: 0, removed: 4, offloaded: 0, onboarded: 0, blocks: 6 },
        { minute: M + 3 * MIN, tier: "device", stored: 2, removed: 0, offloaded: 0, onboarded: 2, blocks: 8 },
      ],
    });
    expect(v.points.map((p) => [p.blocks.device, p.blocks.host, p.blocks.disk])).toEqual([
      [10, null, null],
      [6, 4, null],
      [6, 4, null],
      [8, 4, null],
    ]);
    expect(v.points.map((p) => [p.offloadPerS, p.onboardPerS])).toEqual([
      [0, 0],
      [4 / 60, 0],
      [0, 0],
      [0, 2 / 60],
    ]);
    expect(v.tiers).toEqual(["device", "host"]);
    expect(v.totals).toMatchObject({ offloaded: 4, onboarded: 2 });
  });

  it("hit rate per tier is the tier's cached tokens over the bucket's input tokens (gaps where no request)", () => {
    const v = workerTierView({
      ...base,
      requests: [
        { minute: M, input: 1000, device: 500, host: 250, disk: 0, shared: 0, prefetched: 200 },
        { minute: M, input: 1000, device: 700, host: 0, disk: 50, shared: 0, prefetched: 0 },
      ],
    });
    expect(v.points[0]!.hit).toEqual({ device: 0.6, host: 0.125, disk: 0.025, shared: 0 });
    expect(v.points[0]!.prefetched).toBe(200);
    expect(v.points[1]!.hit).toEqual({ device: null, host: null, disk: null, shared: null });
    expect(v.tiers).toEqual(["device", "host", "disk"]);
    expect(v.totals.cached).toEqual({ device: 1200, host: 250, disk: 50, shared: 0 });
  });

  it("KVBM readings give their own rates and hit rates (mean per bucket), and flag the view as having KVBM", () => {
    const v = workerTierView({
      ...base,
      step: 2 * MIN,
      kvbm: [
        { minute: M, offloaded: 120, onboarded: 60, hostHitRate: 0.5, diskHitRate: null },
        { minute: M + MIN, offloaded: 120, onboarded: 0, hostHitRate: 0.7, diskHitRate: 0.1 },
      ],
    });
    expect(v.points).toHaveLength(2);
    expect(v.points[0]).toMatchObject({ kvbmOffloadPerS: 2, kvbmOnboardPerS: 0.5, kvbmDiskHit: 0.1 });
    expect(v.points[0]!.kvbmHostHit).toBeCloseTo(0.6);
    expect(v.points[1]).toMatchObject({ kvbmOffloadPerS: null, kvbmHostHit: null });
    expect(v.hasKvbm).toBe(true);
    expect(v.totals).toMatchObject({ kvbmOffloaded: 240, kvbmOnboarded: 60, offloaded: 0 });
  });

  it("rows outside the range are ignored; an empty worker has no tiers", () => {
    const v = workerTierView({
      ...base,
      kv: [{ minute: M - MIN, tier: "host", stored: 1, removed: 0, offloaded: 1, onboarded: 0, blocks: 1 }],
    });
    expect(v.tiers).toEqual([]);
    expect(v.hasKvbm).toBe(false);
    expect(v.points.every((p) => p.offloadPerS === null)).toBe(true);
  });

  it("buckets are never finer than a minute", () => {
    expect(tierStep(15 * MIN)).toBe(MIN);
    expect(tierStep(24 * 60 * MIN)).toBeGreaterThan(MIN);
  });
});

describe("cachedSplit", () => {
  it.each([
    [{ cached: 900, host: 0, disk: 0, shared: 0, prefetched: 0 }, null],
    [
      { cached: 900, host: 300, disk: 100, shared: 0, prefetched: 50 },
      { device: 500, host: 300, disk: 100, shared: 0, prefetched: 50 },
    ],
    [
      { cached: 0, host: 0, disk: 0, shared: 0, prefetched: 10 },
      { device: 0, host: 0, disk: 0, shared: 0, prefetched: 10 },
    ],
  ])("%j → %j", (sums, split) => {
    expect(cachedSplit(sums)).toEqual(split);
  });
});
