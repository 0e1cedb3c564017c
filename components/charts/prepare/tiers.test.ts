import { describe, expect, it } from "vitest";
import type { TierPoint } from "@/server/analysis/tiers";
import { onboardedText, splitParts, tierBlockChart, tierHitChart, tierRateChart, turnTierText } from "./tiers";

const point = (t: number, o: Partial<TierPoint> = {}): TierPoint => ({
  t,
  blocks: { device: null, host: null, disk: null, shared: null },
  offloadPerS: null,
  onboardPerS: null,
  kvbmOffloadPerS: null,
  kvbmOnboardPerS: null,
  hit: { device: null, host: null, disk: null, shared: null },
  prefetched: null,
  kvbmHostHit: null,
  kvbmDiskHit: null,
  ...o,
});

describe("tier charts", () => {
  it("blocks: one line per tier seen, values per bucket with gaps kept", () => {
    const c = tierBlockChart(
      [
        point(0, { blocks: { device: 5, host: null, disk: null, shared: null } }),
        point(60, { blocks: { device: 3, host: 2, disk: null, shared: null } }),
      ],
      ["device", "host"],
    );
    expect(c.lines.map((l) => l.key)).toEqual(["device", "host"]);
    expect(c.rows).toEqual([
      { t: 0, device: 5, host: null },
      { t: 60, device: 3, host: 2 },
    ]);
  });

  it("rates: event lines only when events moved blocks; KVBM lines only with KVBM, dashed", () => {
    expect(tierRateChart([point(0)], false).lines).toEqual([]);
    const c = tierRateChart([point(0, { offloadPerS: 1 })], true);
    expect(c.lines.map((l) => [l.key, Boolean(l.dashed)])).toEqual([
      ["offload", false],
      ["onboard", false],
      ["kvbmOffload", true],
      ["kvbmOnboard", true],
    ]);
  });

  it("hit rates in percent, only for tiers with requests in range; KVBM host/disk when served", () => {
    const c = tierHitChart(
      [point(0, { hit: { device: 0.5, host: 0.25, disk: null, shared: null }, kvbmHostHit: 0.4 })],
      ["device", "host", "disk"],
      true,
    );
    expect(c.lines.map((l) => l.key)).toEqual(["device", "host", "kvbmHost"]);
    expect(c.rows[0]).toEqual({ t: 0, device: 50, host: 25, kvbmHost: 40, kvbmDisk: null });
  });
});

describe("cached split and turn text", () => {
  it("lists device always and other tiers with tokens, shares of all cached tokens, prefetched apart", () => {
    expect(
      splitParts({ device: 600, host: 300, disk: 0, shared: 100, prefetched: 200 }).map((p) => [
        p.key,
        p.tokens,
        p.share,
      ]),
    ).toEqual([
      ["device", 600, 0.6],
      ["host", 300, 0.3],
      ["shared", 100, 0.1],
      ["prefetched", 200, 0.2],
    ]);
  });

  it.each([
    [{ device: null, host: null, disk: null, shared: null, prefetched: null }, null],
    [{ device: 500, host: 300, disk: 0, shared: 0, prefetched: 250 }, "device 500 · host 300 · prefetched 250"],
    [{ device: null, host: null, disk: null, shared: null, prefetched: 1200 }, "prefetched 1,200"],
    [{ device: 0, host: 0, disk: 0, shared: 0, prefetched: null }, "none cached"],
  ])("%j → %s", (t, text) => {
    expect(turnTierText(t)).toBe(text);
  });

  it.each([
    [{ host: null, disk: null, shared: null }, null],
    [{ host: 0, disk: 0, shared: 0 }, null],
    [{ host: 300, disk: 1200, shared: 0 }, "onboarded from disk 1,200 · host 300"],
  ])("onboarded outcome of %j → %s", (t, text) => {
    expect(onboardedText(t)).toBe(text);
  });
});
