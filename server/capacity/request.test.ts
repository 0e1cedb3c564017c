import { describe, expect, it } from "vitest";
import {
  CAPACITY_DEFAULT_WINDOW_MS,
  DEFAULT_TIER_GBPS,
  keptWindow,
  parseCapacityQuery,
  replayCapacities,
} from "./request";

const NOW = Date.UTC(2026, 11, 5, 12);
const H = 3_600_000;
const D = 24 * H;

describe("parseCapacityQuery", () => {
  it("defaults to the last hour of the default cluster, JSON, 25 GB/s", () => {
    expect(parseCapacityQuery(new URLSearchParams(""), NOW)).toEqual({
      cluster: "default",
      model: null,
      role: null,
      from: NOW - CAPACITY_DEFAULT_WINDOW_MS,
      to: NOW,
      capacities: null,
      target: null,
      bytesPerToken: null,
      tierGbps: DEFAULT_TIER_GBPS,
      format: "json",
    });
  });

  it("reads every parameter", () => {
    const q = parseCapacityQuery(
      new URLSearchParams(
        "from=1000&to=2000&cluster=prod&model=openai/gpt-oss-120b&role=prefill&capacities=300,100&target=0.8&bytes_per_token=73728&tier_gbps=12.5&format=csv",
      ),
      NOW,
    );
    expect(q).toMatchObject({
      from: 1000,
      to: 2000,
      cluster: "prod",
      model: "openai/gpt-oss-120b",
      role: "prefill",
      capacities: [100, 300],
      target: 0.8,
      bytesPerToken: 73_728,
      tierGbps: 12.5,
      format: "csv",
    });
  });

  it.each([
    ["from=-5&to=10", "from"],
    ["from=1e3&to=5000", "from"],
    ["model=a%20b", "model"],
    [`model=${"m".repeat(201)}`, "model"],
    ["bytes_per_token=99999999999", "bytes_per_token"],
    ["tier_gbps=fast", "tier_gbps"],
  ])("refuses %s naming %s", (query, param) => {
    expect(() => parseCapacityQuery(new URLSearchParams(query), NOW)).toThrow(new RegExp(`^${param} `));
  });
});

describe("replayCapacities", () => {
  const q = (capacities: string) => parseCapacityQuery(new URLSearchParams(`capacities=${capacities}`), NOW);
  it("takes 1 to 4 capacities of at least a block", () => expect(replayCapacities(q("4,1,2,3"))).toEqual([1, 2, 3, 4]));
  it.each(["", "0", "1,2,3,4,5"])("refuses %j", (c) => expect(() => replayCapacities(q(c))).toThrow(/^capacities /));
});

describe("keptWindow", () => {
  it.each([
    ["a recent window", NOW - H, NOW, 30, 24, NOW - H, []],
    [
      "a window partly past the raw samples' 24 h",
      NOW - 25 * H,
      NOW - H,
      30,
      24,
      NOW - 25 * H,
      ["worker samples before"],
    ],
    [
      "a window wholly past the samples",
      NOW - 30 * H,
      NOW - 26 * H,
      30,
      24,
      NOW - 30 * H,
      ["last reported kv_total_blocks"],
    ],
    [
      "a window partly past the requests' 1 day",
      NOW - 25 * H,
      NOW - H,
      1,
      1,
      NOW - D,
      ["requests before", "worker samples before"],
    ],
  ] as const)("%s", (_, from, to, days, rawHours, keptFrom, notes) => {
    const k = keptWindow(from, to, NOW, days, rawHours);
    expect(k.from).toBe(keptFrom);
    expect(k.deleted.length).toBe(notes.length);
    notes.forEach((n, i) => expect(k.deleted[i]).toContain(n));
  });

  it("refuses a window whose requests were all deleted (422)", () => {
    expect(() => keptWindow(NOW - 3 * D, NOW - 2 * D, NOW, 1, 24)).toThrow(/requests older than 1 days/);
  });
});
