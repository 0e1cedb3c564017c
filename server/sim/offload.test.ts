import { describe, expect, it } from "vitest";
import { tierSum } from "../ingest/events";
import { describeOffload, OFFLOAD_VARIANTS, runOffload } from "./offload-report";
import { PREDICT_QUANTILE, ToolDurations } from "./prefetch";
import { ofKind, runScenario } from "./test-support";

// The offload scenario (issue 16 point 5): with offload off, prefixes are recomputed after every long tool wait; with
// offload to host, most come back as host hits; with prefetch on resume, most are device hits again, and TTFT p50
// beats offload-only by at least 30%.

describe("offload scenario: off, offload to host, offload + prefetch on resume", () => {
  const results = Object.fromEntries(OFFLOAD_VARIANTS.map((v) => [v, runOffload(v, 900)]));
  for (const r of Object.values(results)) console.log(describeOffload(r));
  const { off, offload, prefetch } = results as Record<
    (typeof OFFLOAD_VARIANTS)[number],
    ReturnType<typeof runOffload>
  >;

  it("recomputes agents' context after long tool waits with offload off (only the shared system prompt stays cached)", () => {
    expect(off.share.host).toBe(0);
    expect(off.share.cached).toBeLessThan(0.65);
  });

  it("brings most of it back as host hits with offload to host", () => {
    expect(offload.share.cached).toBeGreaterThan(off.share.cached + 0.3);
    expect(offload.share.host).toBeGreaterThan(offload.share.cached - off.share.cached - 0.1);
    expect(offload.share.prefetched).toBe(0);
  });

  it("serves most of it from device again with prefetch on, and beats offload-only on TTFT p50 by at least 30%", () => {
    const regained = prefetch.share.cached - off.share.cached;
    expect(prefetch.share.device - off.share.device).toBeGreaterThan(regained / 2);
    expect(prefetch.share.prefetched).toBeGreaterThan(prefetch.share.host);
    expect(prefetch.ttftP50!).toBeLessThanOrEqual(0.7 * offload.ttftP50!);
    expect(offload.ttftP50!).toBeLessThan(off.ttftP50!);
  });

  it("counts the prefetches and how much of them was wasted", () => {
    const p = prefetch.prefetch!;
    expect(p.prefetches).toBeGreaterThan(50);
    expect(p.used + p.wasted).toBeLessThanOrEqual(p.blocks);
    expect(prefetch.wastedShare).toBeGreaterThan(0);
    expect(prefetch.wastedShare).toBeLessThan(0.3);
    expect(off.prefetch).toBeNull();
  });
});

describe("storage-tier events of the simulator (docs/telemetry-format.md)", () => {
  const events = runScenario({
    scenario: "offload",
    seconds: 300,
    policies: {
      retention: {
        rules: [
          { name: "keep-system-prompt", match: { segment: "system_prompt" }, priority: 90, ttl_seconds: 3600 },
          { name: "agent-context", match: { segment: "any" }, offload: { to: "host" }, prefetch_on_resume: true },
        ],
      },
      frontend: { prefetch: { enabled: true, lead_ms: 2_000 } },
    },
  });
  const stored = ofKind(events, "kv.stored");
  const removed = ofKind(events, "kv.removed");

  it("offloads: kv.removed from device with reason offloaded, kv.stored on host", () => {
    expect(removed.some((e) => e.reason === "offloaded" && e.storage_tier === undefined)).toBe(true);
    expect(stored.some((e) => e.storage_tier === "host")).toBe(true);
  });

  it("onboards: kv.stored on device with onboarded_from host", () => {
    expect(stored.some((e) => e.onboarded_from === "host" && e.storage_tier === undefined)).toBe(true);
  });

  it("splits every request's cached tokens by tier (summing to cached_tokens) and counts prefetched tokens", () => {
    const requests = ofKind(events, "request").filter((r) => r.worker_id);
    expect(requests.length).toBeGreaterThan(20);
    for (const r of requests) {
      expect(tierSum(r.cached_tokens_by_tier!)).toBe(r.cached_tokens);
      expect(r.prefetched_tokens!).toBeLessThanOrEqual(r.cached_tokens_by_tier!.device!);
    }
    expect(requests.some((r) => r.prefetched_tokens! > 0)).toBe(true);
    expect(requests.some((r) => r.cached_tokens_by_tier!.host! > 0)).toBe(true);
  });

  it("emits no tier fields in a scenario without lower tiers", () => {
    const steady = runScenario({ scenario: "pressure", seconds: 120 });
    expect(ofKind(steady, "request").some((r) => r.cached_tokens_by_tier !== undefined)).toBe(false);
    expect(ofKind(steady, "kv.removed").some((e) => e.reason === "offloaded")).toBe(false);
  });
});

describe("tool duration prediction", () => {
  it("uses the tool's distribution until enough runs are recorded, then the recorded runs", () => {
    const d = new ToolDurations();
    const wait = { median: 40_000, sigma: 0.3, max: 240_000 };
    expect(d.predict("Bash", wait)).toBeCloseTo(40_000 * Math.exp(-0.6745 * 0.3), 0);
    for (let i = 1; i <= 20; i++) d.record("Bash", i * 1_000);
    expect(d.predict("Bash", wait)).toBe(Math.floor(PREDICT_QUANTILE * 19 + 1) * 1_000);
    expect(d.predict("Bash", wait, 0.9)).toBe(18_000);
  });
});
