import { describe, expect, it } from "vitest";
import { fleetRows, type FleetInput } from "./fleet";

const names = new Map([
  [0, "default"],
  [7, "staging"],
]);
const base: FleetInput = { groups: [], ttfts: [], samples: [], names, windowMs: 60_000 };
const sample = (clusterId: number, workerId: string, ts: number, active: number, model: string | null = "m1") => ({
  clusterId,
  workerId,
  ts,
  kvActiveBlocks: active,
  kvTotalBlocks: 100,
  model,
});

describe("fleet rows", () => {
  it("is empty for an empty window", () => {
    expect(fleetRows(base)).toEqual([]);
  });

  it("keeps each model's figures apart within a cluster, and each cluster's apart", () => {
    const rows = fleetRows({
      ...base,
      groups: [
        { clusterId: 0, model: "m1", requests: 60, inputTokens: 1000, cachedTokens: 900 },
        { clusterId: 0, model: "m2", requests: 6, inputTokens: 1000, cachedTokens: 100 },
        { clusterId: 7, model: "m1", requests: 30, inputTokens: 0, cachedTokens: 0 },
      ],
      ttfts: [
        { clusterId: 0, model: "m1", ttft: 10 },
        { clusterId: 0, model: "m1", ttft: 20 },
        { clusterId: 0, model: "m1", ttft: 30 },
        { clusterId: 0, model: "m2", ttft: 500 },
        { clusterId: 7, model: "m1", ttft: 40 },
      ],
    });
    expect(rows.map((r) => [r.cluster, r.model, r.requestsPerSecond, r.hitRate, r.ttftP50Ms, r.ttftP95Ms])).toEqual([
      ["default", "m1", 1, 0.9, 20, 30],
      ["default", "m2", 0.1, 0.1, 500, 500],
      ["staging", "m1", 0.5, null, 40, 40],
    ]);
  });

  it("takes each worker's latest sample, by cluster: the same worker id in two clusters is two workers", () => {
    const rows = fleetRows({
      ...base,
      samples: [
        sample(0, "w1", 1, 10),
        sample(0, "w1", 2, 50),
        sample(7, "w1", 1, 90),
        sample(0, "w2", 2, 30),
        sample(0, "w3", 2, 70, null),
      ],
    });
    expect(rows.map((r) => [r.cluster, r.model, r.workers, r.kvUtilization, r.requests])).toEqual([
      ["default", "m1", 2, 0.4, 0],
      ["default", null, 1, 0.7, 0],
      ["staging", "m1", 1, 0.9, 0],
    ]);
  });

  it("names a cluster id it has no name for", () => {
    const rows = fleetRows({
      ...base,
      groups: [{ clusterId: 42, model: "m", requests: 1, inputTokens: 1, cachedTokens: 1 }],
    });
    expect(rows[0]).toMatchObject({ cluster: "#42", hitRate: 1 });
  });
});
